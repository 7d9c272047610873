package sqlgen

// LikeToRegex exposes likeToRegex to the external tests.
var LikeToRegex = likeToRegex
