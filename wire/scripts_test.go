package wire

import "testing"

// TestResourceTypeAndLinkScripts: script requests are signed with resource
// type sprocs/triggers/udfs and the container's link (feeds, creates,
// queries) or the script's link (read, replace, delete, execute), by name
// or by RID (reference §1.1 of server-side-js.md).
func TestResourceTypeAndLinkScripts(t *testing.T) {
	cases := []struct{ path, typ, link string }{
		{"/dbs/d/colls/c/sprocs", "sprocs", "dbs/d/colls/c"},
		{"/dbs/d/colls/c/sprocs/s%201", "sprocs", "dbs/d/colls/c/sprocs/s 1"},
		{"/dbs/d/colls/c/triggers", "triggers", "dbs/d/colls/c"},
		{"/dbs/d/colls/c/triggers/t", "triggers", "dbs/d/colls/c/triggers/t"},
		{"/dbs/d/colls/c/udfs", "udfs", "dbs/d/colls/c"},
		{"/dbs/d/colls/c/udfs/Tax", "udfs", "dbs/d/colls/c/udfs/Tax"},
		{"/dbs/hLEEAA==/colls/hLEEAI1Yjgc=/sprocs/hLEEAI1YjgcBAAAAAAAAgA==", "sprocs", "dbs/hLEEAA==/colls/hLEEAI1Yjgc=/sprocs/hLEEAI1YjgcBAAAAAAAAgA=="},
	}
	for _, c := range cases {
		typ, link := ResourceTypeAndLink(c.path)
		if typ != c.typ || link != c.link {
			t.Errorf("ResourceTypeAndLink(%q) = %q, %q; want %q, %q", c.path, typ, link, c.typ, c.link)
		}
	}
}

// TestEncodeURIComponent: the script log header is encoded as
// JavaScript's encodeURIComponent encodes (the JS SDK's test compares
// with it).
func TestEncodeURIComponent(t *testing.T) {
	cases := map[string]string{
		"The value of x is 1.": "The%20value%20of%20x%20is%201.",
		"a+b=c&d/é":            "a%2Bb%3Dc%26d%2F%C3%A9",
		"-_.!~*'()":            "-_.!~*'()",
		"":                     "",
	}
	for in, want := range cases {
		if got := encodeURIComponent(in); got != want {
			t.Errorf("encodeURIComponent(%q) = %q, want %q", in, got, want)
		}
	}
}
