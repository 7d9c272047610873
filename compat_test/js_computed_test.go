package compat_test

import (
	"fmt"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSComputedProperties runs compat_test/js/computed.mjs against
// emulators whose containers have 1 and 4 partition key ranges. The JS
// SDK's computed-properties spec passes as written: containers created
// without a partition key by createIfNotExists, items with a client-sent
// _rid, "SELECT c.lowerLastName, c.parentsFullName FROM c" answering the
// spec's rows in insertion order whatever the indexing policy, undefined
// properties omitted, and a container replace taking effect for the very
// next query (read back, swapped to [parentsFullName], then to []). Across
// partitions the SDK's pipeline orders, groups, aggregates and
// de-duplicates on computed properties with the same answer for 1 and 4
// ranges, and whole items (SELECT *, point reads) do not hold them.
func TestJSComputedProperties(t *testing.T) {
	const want = `SPEC_NONE [{},{}]
SPEC_NO_POLICY [{"lowerLastName":"andersen","parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{"lowerLastName":"wakefield"}]
SPEC_INCLUDE_ALL [{"lowerLastName":"andersen","parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{"lowerLastName":"wakefield"}]
SPEC_EXCLUDE_ALL [{"lowerLastName":"andersen","parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{"lowerLastName":"wakefield"}]
SPEC_CP_PATHS_AND_ALL [{"lowerLastName":"andersen","parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{"lowerLastName":"wakefield"}]
SPEC_CP_PATHS_ONLY [{"lowerLastName":"andersen","parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{"lowerLastName":"wakefield"}]
SPEC_REPLACE_BEFORE [{"lowerLastName":"andersen"},{"lowerLastName":"wakefield"}]
SPEC_READ_BACK [{"name":"lowerLastName","query":"SELECT VALUE LOWER(IS_DEFINED(c.lastName) ? c.lastName : c.parents[0].familyName) FROM c"}]
SPEC_REPLACE_ECHO [{"name":"parentsFullName","query":"SELECT VALUE CONCAT(CONCAT(c.parents[0].firstName, ' ', c.lastName), ' & ', CONCAT(c.parents[1].firstName, ' ', c.lastName)) FROM c"}]
SPEC_REPLACE_PARENTS [{"parentsFullName":"Thomas Andersen & Mary Kay Andersen"},{}]
SPEC_REPLACE_EMPTY [{},{}]
CROSS_ORDERBY ["i1","i4","i3","i0","i2","i7","i6","i5","i8","i9"]
CROSS_ORDERBY_DESC_TOP [{"id":"i9","cp_lower":"juliet"},{"id":"i8","cp_lower":"india"},{"id":"i5","cp_lower":"hotel"}]
CROSS_GROUPBY [{"cp_cat":"Bikes","n":4,"s":36},{"cp_cat":"Clothing","n":6,"s":54}]
CROSS_VALUE_AGG [18]
CROSS_DISTINCT ["Bikes","Clothing"]
CROSS_STAR_KEYS [["id","pk","name","cat","n"]]
POINT_READ_KEYS ["id","pk","name","cat","n"]
`
	for _, ranges := range []int{1, 4} {
		t.Run(fmt.Sprintf("ranges=%d", ranges), func(t *testing.T) {
			checkJSScript(t, "JS SDK computed properties run", "computed.mjs", "computed", want, emulatortest.WithMinPartitionRanges(ranges))
		})
	}
}
