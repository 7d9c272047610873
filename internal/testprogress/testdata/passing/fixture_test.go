package fixture

import "testing"

func TestPasses(t *testing.T) {}

func TestSkipsTooWithoutAWord(t *testing.T) { t.SkipNow() }
