package fixture

import "testing"

func TestDoesNotCompile(t *testing.T) { undefinedName() }
