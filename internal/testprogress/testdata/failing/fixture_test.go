package fixture

import "testing"

func TestPasses(t *testing.T) {}

func TestSkips(t *testing.T) { t.Skip("needs a unicorn") }

func TestFails(t *testing.T) { t.Error("the answer was 41") }

func TestTable(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
}
