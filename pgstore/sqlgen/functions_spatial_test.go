package sqlgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// The expected distances and areas below were computed independently with
// GeographicLib (npm geographiclib-geodesic 2.x, Geodesic.WGS84: Inverse
// for distances, Polygon(false).Compute(false, true) for areas); the
// point-to-line distances with a brute-force minimum over 100,001 points
// of the line (which is why they are only an upper bound, to 1e-8).

// approxCase is a query whose one result is a number within rel (relative)
// of want.
type approxCase struct {
	query string
	want  float64
	rel   float64
}

func runApprox(t *testing.T, cases []approxCase) {
	t.Helper()
	pool := fnDB(t)
	for _, c := range cases {
		got, err := evalQuery(t, pool, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: %d results, want %v", c.query, len(got), c.want)
			continue
		}
		f, ok := got[0].(float64)
		if !ok || math.Abs(f-c.want) > c.rel*math.Max(math.Abs(c.want), 1) {
			t.Errorf("%s = %v, want %v (±%g relative)", c.query, got[0], c.want, c.rel)
		}
	}
}

// evalParam runs a query with one parameter through sqlgen and returns its
// one result.
func evalParam(t *testing.T, pool *pgxpool.Pool, query, name, value string) any {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %s: %v", query, err)
	}
	st, err := sqlgen.Translate(q, sqlgen.Input{Table: "fn_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 100, Params: map[string]json.RawMessage{name: json.RawMessage(value)}})
	if err != nil {
		t.Fatalf("translate %s: %v", query, err)
	}
	rows, err := pool.Query(context.Background(), st.SQL, st.Args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		var v any
		s, _ := vals[len(vals)-1].(string)
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: result %q: %v", query, s, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil || len(out) != 1 {
		t.Fatalf("%s: %d results, %v", query, len(out), err)
	}
	return out[0]
}

// pt, line and poly write GeoJSON literals.
func pt(x, y float64) string { return fmt.Sprintf(`{"type": "Point", "coordinates": [%v, %v]}`, x, y) }

func line(coords string) string { return `{"type": "LineString", "coordinates": ` + coords + `}` }

func poly(rings ...string) string {
	return `{"type": "Polygon", "coordinates": [` + strings.Join(rings, ", ") + `]}`
}

func multi(polys ...string) string {
	return `{"type": "MultiPolygon", "coordinates": [` + strings.Join(polys, ", ") + `]}`
}

// Rings (counter-clockwise unless named cw): a 10° square, a hole in it,
// a second square east of it, and the campus of the st-within case.
const (
	square   = `[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]`
	squareCW = `[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]`
	hole     = `[[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]`
	east     = `[[20, 0], [30, 0], [30, 10], [20, 10], [20, 0]]`
	campus   = `[[-122.13236581015025, 47.64606476313813], [-122.13221982500913, 47.633757091363975], [-122.11840598103835, 47.641749416109235], [-122.12061400629656, 47.64589264786028], [-122.13236581015025, 47.64606476313813]]`
)

func TestSpatialDistance(t *testing.T) {
	redmond := pt(-122.11758113953535, 47.66901087006131)
	runApprox(t, []approxCase{
		// one degree of longitude on the equator
		{`SELECT VALUE ST_DISTANCE(` + pt(0, 0) + `, ` + pt(1, 0) + `)`, 111319.49079327357, 1e-12},
		// the points of the st-distance conformance case (the service says
		// 3345.269817267368 and 1907438.421299902, see knownConformanceGaps)
		{`SELECT VALUE ST_DISTANCE(` + pt(-122.12826822304672, 47.63980239335718) + `, ` + redmond + `)`, 3345.2697403737193, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(-96.84368664765994, 46.81297794314663) + `, ` + redmond + `)`, 1907438.3420087907, 1e-12},
		// antipodal and nearly antipodal points (where Vincenty's method
		// fails), poles, the same point
		{`SELECT VALUE ST_DISTANCE(` + pt(0, 0) + `, ` + pt(180, 0) + `)`, 20003931.458625447, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(0, 30) + `, ` + pt(179.5, -30) + `)`, 19980861.908890963, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(0, 0) + `, ` + pt(179.5, 0.5) + `)`, 19936288.578965314, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(174.81, -41.32) + `, ` + pt(-5.50, 40.96) + `)`, 19959679.26735382, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(0, 90) + `, ` + pt(0, -90) + `)`, 20003931.458625447, 1e-12},
		{`SELECT VALUE ST_DISTANCE(` + pt(10, 90) + `, ` + pt(-170, 90) + `)`, 0, 0},
		{`SELECT VALUE ST_DISTANCE(` + pt(5, 5) + `, ` + pt(5, 5) + `)`, 0, 0},
		// a point and a line, both ways round
		{`SELECT VALUE ST_DISTANCE(` + pt(5.3, 61) + `, ` + line(`[[5, 60], [7, 60.2]]`) + `)`, 105918.62877547929, 1e-9},
		{`SELECT VALUE ST_DISTANCE(` + line(`[[5, 60], [7, 60.2]]`) + `, ` + pt(5.3, 61) + `)`, 105918.62877547929, 1e-9},
		{`SELECT VALUE ST_DISTANCE(` + pt(10, 60) + `, ` + line(`[[0, 40], [30, 45]]`) + `)`, 1967740.5041360224, 1e-8},
		// a point and a polygon: outside (nearest to an edge), inside, in a
		// hole (nearest to the hole's southern edge), the nearer polygon of
		// a multipolygon
		{`SELECT VALUE ST_DISTANCE(` + pt(0.5, 2) + `, ` + poly(`[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]`) + `)`, 110575.06481433612, 1e-9},
		{`SELECT VALUE ST_DISTANCE(` + pt(2, 2) + `, ` + poly(square, hole) + `)`, 0, 0},
		{`SELECT VALUE ST_DISTANCE(` + pt(5, 5) + `, ` + poly(square) + `)`, 0, 0},
		{`SELECT VALUE ST_DISTANCE(` + pt(5, 5) + `, ` + poly(square, hole) + `)`, 110581.13908045941, 1e-9},
		{`SELECT VALUE ST_DISTANCE(` + pt(31, 0) + `, ` + multi("["+square+"]", "["+east+"]") + `)`, 111319.49079327357, 1e-9},
		// two polygons (nearest between the corners at latitude 1), two that
		// overlap, a line through a polygon
		{`SELECT VALUE ST_DISTANCE(` + poly(`[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]`) + `, ` + poly(`[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]`) + `)`, 111302.64933943082, 1e-9},
		{`SELECT VALUE ST_DISTANCE(` + poly(square) + `, ` + poly(`[[5, 5], [15, 5], [15, 15], [5, 15], [5, 5]]`) + `)`, 0, 0},
		{`SELECT VALUE ST_DISTANCE(` + line(`[[-5, 5], [15, 5]]`) + `, ` + poly(square) + `)`, 0, 0},
	})
	runCases(t, fnDB(t), []fnCase{
		// kilometres, as in the st-distance case
		v(`ST_DISTANCE(`+pt(0, 0)+`, `+pt(1, 0)+`) / 1000 > 111.3`, `true`),
		// anything but two valid geometries is undefined
		v(`ST_DISTANCE(`+pt(0, 0)+`, `+pt(0, 91)+`)`, ``),
		v(`ST_DISTANCE(`+pt(0, 0)+`, "POINT(0 0)")`, ``),
		v(`ST_DISTANCE(`+pt(0, 0)+`, undefined)`, ``),
		v(`ST_DISTANCE(`+pt(0, 0)+`, null)`, ``),
		v(`ST_DISTANCE([0, 0], [1, 0])`, ``),
		d(`ST_DISTANCE(c.missing, `+pt(0, 0)+`)`, ``),
	})
}

func TestSpatialWithinIntersects(t *testing.T) {
	pool := fnDB(t)
	sq, sqHole, sqCW := poly(square), poly(square, hole), poly(squareCW)
	two := multi("["+square+"]", "["+east+"]")
	small := poly(`[[1, 1], [3, 1], [3, 3], [1, 3], [1, 1]]`)
	aroundHole := poly(`[[3, 3], [7, 3], [7, 7], [3, 7], [3, 3]]`)
	inHole := poly(`[[4.5, 4.5], [5.5, 4.5], [5.5, 5.5], [4.5, 5.5], [4.5, 4.5]]`)
	within := func(a, b, want string) fnCase { return v(`ST_WITHIN(`+a+`, `+b+`)`, want) }
	inter := func(a, b, want string) fnCase { return v(`ST_INTERSECTS(`+a+`, `+b+`)`, want) }
	runCases(t, pool, []fnCase{
		// the st-within conformance case
		within(pt(-122.12824857332558, 47.6395516675712), poly(campus), `true`),
		within(pt(-122.14, 47.6395516675712), poly(campus), `false`),
		// points: inside, outside, in the hole, beside it, on the boundary
		within(pt(5, 5), sq, `true`),
		within(pt(15, 5), sq, `false`),
		within(pt(5, 5), sqHole, `false`),
		within(pt(2, 2), sqHole, `true`),
		within(pt(0, 5), sq, `false`),
		within(pt(4, 5), sqHole, `false`),
		// multipolygons
		within(pt(25, 5), two, `true`),
		within(pt(15, 5), two, `false`),
		// a clockwise exterior ring is the region outside it
		within(pt(5, 5), sqCW, `false`),
		within(pt(50, 50), sqCW, `true`),
		// lines: inside, ending in the hole, across the hole, leaving the
		// polygon, across the gap between two polygons, inside the second
		within(line(`[[1, 1], [3, 3]]`), sqHole, `true`),
		within(line(`[[1, 1], [5, 5]]`), sqHole, `false`),
		within(line(`[[1, 5], [9, 5]]`), sqHole, `false`),
		within(line(`[[1, 5], [9, 5]]`), sq, `true`),
		within(line(`[[1, 1], [15, 1]]`), sq, `false`),
		within(line(`[[1, 1], [25, 1]]`), two, `false`),
		within(line(`[[21, 1], [29, 9]]`), two, `true`),
		// a line along the boundary only is not within (OGC)
		within(line(`[[0, 0], [10, 0]]`), sq, `false`),
		// polygons: inside, around the hole, the same polygon
		within(small, sqHole, `true`),
		within(aroundHole, sqHole, `false`),
		within(aroundHole, sq, `true`),
		within(sq, sq, `true`),
		within(sq, small, `false`),
		within(multi("[[[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]", "[[[22, 1], [23, 1], [23, 2], [22, 2], [22, 1]]]"), two, `true`),
		within(multi("[[[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]", "[[[12, 1], [13, 1], [13, 2], [12, 2], [12, 1]]]"), two, `false`),
		// within a point or a line
		within(pt(1, 2), pt(1, 2), `true`),
		within(pt(1, 2), pt(1, 3), `false`),
		within(pt(5, 0), line(`[[0, 0], [10, 0]]`), `true`),
		within(pt(5, 1), line(`[[0, 0], [10, 0]]`), `false`),
		within(line(`[[2, 0], [4, 0]]`), line(`[[0, 0], [10, 0]]`), `true`),
		within(line(`[[2, 0], [4, 1]]`), line(`[[0, 0], [10, 0]]`), `false`),
		within(sq, line(`[[0, 0], [10, 0]]`), `false`),

		// the st-intersect conformance case
		inter(poly(`[[-122.13693695285855, 47.64996065621003], [-122.1351662656516, 47.64627863318731], [-122.13488295569863, 47.646326350048696], [-122.1366182291613, 47.650016321952904], [-122.13693695285855, 47.64996065621003]]`),
			poly(`[[-122.14034847687708, 47.6494835188378], [-122.14014779899375, 47.64625477474044], [-122.13256925774829, 47.646207057813655], [-122.13254564858545, 47.64941990019193], [-122.14034847687708, 47.6494835188378]]`), `true`),
		// points
		inter(pt(1, 2), pt(1, 2), `true`),
		inter(pt(1, 2), pt(2, 1), `false`),
		inter(pt(5, 0), line(`[[0, 0], [10, 0]]`), `true`),
		inter(pt(10, 10), line(`[[0, 0], [10, 10]]`), `true`),
		inter(pt(5, 1), line(`[[0, 0], [10, 0]]`), `false`),
		inter(pt(0, 5), sq, `true`),
		inter(pt(5, 5), sqHole, `false`),
		inter(pt(4, 5), sqHole, `true`),
		inter(sq, pt(5, 5), `true`),
		inter(pt(25, 5), two, `true`),
		inter(pt(5, 5), sqCW, `false`),
		inter(pt(50, 50), sqCW, `true`),
		// lines
		inter(line(`[[0, 0], [10, 10]]`), line(`[[0, 10], [10, 0]]`), `true`),
		inter(line(`[[0, 0], [10, 0]]`), line(`[[0, 1], [10, 1]]`), `false`),
		inter(line(`[[0, 0], [10, 0]]`), line(`[[10, 0], [20, 0]]`), `true`),
		inter(line(`[[-5, 5], [5, 5]]`), sq, `true`),
		inter(line(`[[4.5, 5], [5.5, 5]]`), sqHole, `false`),
		inter(line(`[[4.5, 5], [5.5, 5]]`), sq, `true`),
		inter(line(`[[11, 0], [19, 10]]`), two, `false`),
		// polygons: overlapping, disjoint, one inside the other (no edges
		// meet), inside a hole, touching at a corner
		inter(sq, poly(`[[5, 5], [15, 5], [15, 15], [5, 15], [5, 5]]`), `true`),
		inter(sq, poly(east), `false`),
		inter(poly(`[[-1, -1], [11, -1], [11, 11], [-1, 11], [-1, -1]]`), small, `true`),
		inter(small, poly(`[[-1, -1], [11, -1], [11, 11], [-1, 11], [-1, -1]]`), `true`),
		inter(inHole, sqHole, `false`),
		inter(inHole, sq, `true`),
		inter(sq, poly(`[[10, 10], [20, 10], [20, 20], [10, 20], [10, 10]]`), `true`),
		inter(two, poly(`[[25, 5], [26, 5], [26, 6], [25, 6], [25, 5]]`), `true`),

		// anything but two valid geometries is undefined
		within(pt(0, 0), `{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}`, ``),
		within(pt(0, 0), `{"type": "GeometryCollection", "geometries": []}`, ``),
		within(`undefined`, sq, ``),
		inter(`"x"`, sq, ``),
		inter(pt(0, 200), sq, ``),
		d(`ST_WITHIN(c.missing, `+sq+`)`, ``),
	})
}

func TestSpatialValidity(t *testing.T) {
	pool := fnDB(t)
	detail := func(g, want string) fnCase { return v(`ST_ISVALIDDETAILED(`+g+`)`, want) }
	invalid := func(g, reason string) fnCase {
		return detail(g, `{"valid": false, "reason": "`+reason+`"}`)
	}
	var long []string
	for i := 0; i < 257; i++ {
		long = append(long, fmt.Sprintf("[%d, 0]", i%180))
	}
	runCases(t, pool, []fnCase{
		// the st-isvaliddetailed conformance case
		detail(pt(-84.38876194345323, 33.75682784306348), `{"valid": true}`),
		invalid(pt(133.75682784306348, -184.38876194345323), `Latitude values must be between -90 and 90 degrees.`),
		invalid(pt(-184.38876194345323, 33), `Longitude values must be between -180 and 180 degrees.`),
		invalid(pt(0, 1e300), `Latitude values must be between -90 and 90 degrees.`),
		invalid(pt(-1e300, 0), `Longitude values must be between -180 and 180 degrees.`),
		detail(pt(180, -90), `{"valid": true}`),
		detail(`{"type": "Point", "coordinates": [1, 2, 300]}`, `{"valid": true}`),
		detail(`{"type": "Point", "coordinates": [1, 2], "crs": null}`, `{"valid": true}`),
		detail(line(`[[0, 0], [1, 1]]`), `{"valid": true}`),
		detail(poly(square, hole), `{"valid": true}`),
		detail(multi("["+square+"]", "["+east+"]"), `{"valid": true}`),
		// not a geometry
		invalid(`5`, `The input is not a GeoJSON object.`),
		invalid(`[1, 2]`, `The input is not a GeoJSON object.`),
		invalid(`null`, `The input is not a GeoJSON object.`),
		invalid(`undefined`, `The input is not a GeoJSON object.`),
		invalid(`{"coordinates": [1, 2]}`, `The GeoJSON type is not supported: it must be Point, LineString, Polygon or MultiPolygon.`),
		invalid(`{"type": "point", "coordinates": [1, 2]}`, `The GeoJSON type is not supported: it must be Point, LineString, Polygon or MultiPolygon.`),
		invalid(`{"type": "MultiPoint", "coordinates": [[1, 2]]}`, `The GeoJSON type is not supported: it must be Point, LineString, Polygon or MultiPolygon.`),
		invalid(`{"type": "Point"}`, `The Point input is not valid because it has no coordinates array.`),
		invalid(`{"type": "Point", "coordinates": "1,2"}`, `The Point input is not valid because it has no coordinates array.`),
		// positions
		invalid(`{"type": "Point", "coordinates": ["1", 2]}`, `The Point input is not valid because a position is not an array of two or three numbers.`),
		invalid(`{"type": "Point", "coordinates": [1]}`, `The Point input is not valid because a position is not an array of two or three numbers.`),
		invalid(`{"type": "Point", "coordinates": [1, 2, 3, 4]}`, `The Point input is not valid because a position is not an array of two or three numbers.`),
		invalid(`{"type": "Point", "coordinates": [[1, 2]]}`, `The Point input is not valid because a position is not an array of two or three numbers.`),
		invalid(`{"type": "Point", "coordinates": []}`, `The Point input is not valid because a position is not an array of two or three numbers.`),
		invalid(line(`[[0, 0], [1, null]]`), `The LineString input is not valid because a position is not an array of two or three numbers.`),
		invalid(line(`[0, 0]`), `The LineString input is not valid because its coordinates are not nested as GeoJSON requires.`),
		invalid(poly(`[0, 0]`), `The Polygon input is not valid because its coordinates are not nested as GeoJSON requires.`),
		invalid(`{"type": "Polygon", "coordinates": [1]}`, `The Polygon input is not valid because its coordinates are not nested as GeoJSON requires.`),
		invalid(multi(square), `The MultiPolygon input is not valid because its coordinates are not nested as GeoJSON requires.`),
		// too few points
		invalid(line(`[]`), `The LineString input is not valid because it does not have enough distinct points. A LineString must have at least two distinct points.`),
		invalid(line(`[[1, 1]]`), `The LineString input is not valid because it does not have enough distinct points. A LineString must have at least two distinct points.`),
		invalid(line(`[[1, 1], [1, 1]]`), `The LineString input is not valid because it does not have enough distinct points. A LineString must have at least two distinct points.`),
		invalid(poly(`[[0, 0], [1, 0], [0, 0]]`), `The Polygon input is not valid because the ring number 1 does not have enough points. Each ring of a polygon must contain at least three distinct points.`),
		invalid(poly(`[[0, 0], [1, 0], [0, 0], [1, 0], [0, 0]]`), `The Polygon input is not valid because the ring number 1 does not have enough points. Each ring of a polygon must contain at least three distinct points.`),
		invalid(poly(square, `[[4, 4], [5, 5], [4, 4]]`), `The Polygon input is not valid because the ring number 2 does not have enough points. Each ring of a polygon must contain at least three distinct points.`),
		// rings not closed
		invalid(poly(`[[0, 0], [1, 0], [1, 1], [0, 1]]`), `The Polygon input is not valid because the start and end points of the ring number 1 are not the same. Each ring of a polygon must have the same start and end points.`),
		invalid(multi("["+square+"]", `[[[20, 0], [30, 0], [30, 10], [20, 10]]]`), `The MultiPolygon input is not valid because the start and end points of the ring number 2 are not the same. Each ring of a polygon must have the same start and end points.`),
		// empty
		invalid(`{"type": "Polygon", "coordinates": []}`, `The Polygon input is not valid because it does not have any rings.`),
		invalid(`{"type": "MultiPolygon", "coordinates": []}`, `The MultiPolygon input is not valid because it does not have any polygons.`),
		invalid(`{"type": "MultiPolygon", "coordinates": [[]]}`, `The MultiPolygon input is not valid because it does not have any rings.`),

		// ST_ISVALID is never undefined
		v(`ST_ISVALID(`+pt(-84.38876194345323, 33.75682784306348)+`)`, `true`),
		v(`ST_ISVALID(`+pt(133.75682784306348, -184.38876194345323)+`)`, `false`),
		v(`ST_ISVALID(`+poly(square, hole)+`)`, `true`),
		v(`ST_ISVALID(`+poly(`[[0, 0], [1, 0], [1, 1], [0, 1]]`)+`)`, `false`),
		v(`ST_ISVALID("Point")`, `false`),
		v(`ST_ISVALID(undefined)`, `false`),
		d(`ST_ISVALID(c.missing)`, `false`),
		d(`ST_ISVALIDDETAILED(c.n)`, `{"valid": false, "reason": "The input is not a GeoJSON object."}`),
	})
	// the service's limit on points (spatialMaxGeometryPointCount), with the
	// geometries as parameters (an array literal of more than 100 elements
	// is beyond the translation's constructors)
	for _, c := range []struct {
		g, want string
	}{
		{line(`[` + strings.Join(long, ", ") + `]`), `{"valid":false,"reason":"The geometry has more than 256 points, the most a spatial function accepts."}`},
		{line(`[` + strings.Join(long[:256], ", ") + `]`), `{"valid":true}`},
	} {
		got := evalParam(t, pool, `SELECT VALUE ST_ISVALIDDETAILED(@g)`, "@g", c.g)
		var want any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !sameJSON(got, want) {
			b, _ := json.Marshal(got)
			t.Errorf("ST_ISVALIDDETAILED of %d points = %s, want %s", strings.Count(c.g, "[")-1, b, c.want)
		}
	}
}

func TestSpatialArea(t *testing.T) {
	unit := `[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]`
	runApprox(t, []approxCase{
		{`SELECT VALUE ST_AREA(` + poly(unit) + `)`, 12308778361.469452, 1e-12},
		// the campus of the st-within case (0.92 km²)
		{`SELECT VALUE ST_AREA(` + poly(campus) + `)`, 916842.0265451074, 1e-9},
		// a hole is subtracted: 874001606082.6963 - 36231108383.25195
		{`SELECT VALUE ST_AREA(` + poly(`[[10, 40], [20, 40], [20, 50], [10, 50], [10, 40]]`, `[[12, 42], [12, 44], [14, 44], [14, 42], [12, 42]]`) + `)`, 837770497699.4443, 1e-12},
		// a multipolygon sums its polygons
		{`SELECT VALUE ST_AREA(` + multi("["+unit+"]", "[[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]]") + `)`, 2 * 12308778361.469452, 1e-12},
		// a clockwise ring: the rest of the ellipsoid (510065621724088.44 m²)
		{`SELECT VALUE ST_AREA(` + poly(`[[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]`) + `)`, 510065621724088.44 - 12308778361.469452, 1e-12},
		// edges are geodesics: across the antimeridian's neighbourhood, around a pole
		{`SELECT VALUE ST_AREA(` + poly(`[[170, -10], [179.9, -10], [179.9, 10], [170, 10], [170, -10]]`) + `)`, 2431076519089.9653, 1e-12},
		{`SELECT VALUE ST_AREA(` + poly(`[[0, 80], [90, 80], [180, 80], [-90, 80], [0, 80]]`) + `)`, 2507270031169.875, 1e-12},
		// points and lines have no area
		{`SELECT VALUE ST_AREA(` + pt(1, 2) + `)`, 0, 0},
		{`SELECT VALUE ST_AREA(` + line(`[[0, 0], [1, 1]]`) + `)`, 0, 0},
	})
	runCases(t, fnDB(t), []fnCase{
		v(`ST_AREA(`+poly(`[[0, 0], [1, 0], [1, 1], [0, 1]]`)+`)`, ``),
		v(`ST_AREA({"type": "Polygon"})`, ``),
		v(`ST_AREA(42)`, ``),
		d(`ST_AREA(c.missing)`, ``),
	})
}

// TestSpatialNeverRaises feeds the SQL functions behind the spatial
// functions malformed and extreme GeoJSON (strings for numbers, wrong
// nesting, empty arrays, numbers beyond the double range or below its
// smallest normal value, poles, the antimeridian): every call must return,
// undefined for what is not a valid geometry.
func TestSpatialNeverRaises(t *testing.T) {
	pool := fnDB(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	num := func(lim float64) string {
		switch r.Intn(16) {
		case 0:
			if lim > 180 {
				return "1e400"
			}
			return "-0"
		case 1:
			return "-1e-400"
		case 2:
			return "5e-324"
		case 3:
			return "-1e-310"
		case 4:
			return "1e-30"
		case 5:
			return "0"
		case 6:
			return fmt.Sprint(lim)
		case 7:
			return fmt.Sprint(-lim)
		case 8:
			return fmt.Sprint(lim - 1e-13)
		case 9:
			return "1e-17"
		}
		return fmt.Sprint((r.Float64()*2 - 1) * lim)
	}
	pos := func(broken bool) string {
		if broken {
			switch r.Intn(8) {
			case 0:
				return `"x"`
			case 1:
				return `[]`
			case 2:
				return `[1]`
			case 3:
				return `["1", 2]`
			case 4:
				return `[[1, 2]]`
			case 5:
				return `null`
			case 6:
				return `[1, 2, "z"]`
			}
			return "[" + num(400) + ", " + num(400) + "]"
		}
		return "[" + num(180) + ", " + num(90) + "]"
	}
	geom := func(broken bool) string {
		path := func(n int, closed bool) string {
			ps := []string{}
			for i := 0; i < n; i++ {
				ps = append(ps, pos(broken && r.Intn(3) == 0))
			}
			if closed && n > 0 {
				ps = append(ps, ps[0])
			}
			return "[" + strings.Join(ps, ", ") + "]"
		}
		rings := func() string {
			rs := []string{path(3+r.Intn(4), !broken || r.Intn(2) == 0)}
			for i := 0; i < r.Intn(3); i++ {
				rs = append(rs, path(3+r.Intn(3), !broken || r.Intn(2) == 0))
			}
			return "[" + strings.Join(rs, ", ") + "]"
		}
		types := []string{"Point", "LineString", "Polygon", "MultiPolygon"}
		ty := types[r.Intn(4)]
		var co string
		switch ty {
		case "Point":
			co = pos(broken)
		case "LineString":
			co = path(2+r.Intn(4), false)
		case "Polygon":
			co = rings()
		default:
			co = "[" + rings() + ", " + rings() + "]"
		}
		if broken {
			switch r.Intn(6) {
			case 0:
				ty = types[r.Intn(4)] // coordinates of another type
			case 1:
				return co
			case 2:
				co = "[" + co + "]"
			}
		}
		return `{"type": "` + ty + `", "coordinates": ` + co + `}`
	}
	tricky := [][2]string{
		{pt(0, 0), line(`[[1e-30, 1e-30], [2e-30, -1e-30]]`)},
		{pt(1e-30, 1e-30), poly(`[[0, 0], [1e-30, 0], [0, 1e-30], [0, 0]]`)},
		{pt(3e-30, 0), poly(`[[0, 0], [1e-30, 0], [0, 1e-30], [0, 0]]`)},
		{line(`[[0, 0], [1e-17, 1e-30]]`), line(`[[1e-30, 5e-324], [2e-17, -1e-30]]`)},
		{pt(180, 0), pt(-180, 0)},
		{pt(179.9999999, 0), pt(-179.9999999, 0)},
		{pt(0, 90), line(`[[0, -90], [180, -90]]`)},
		{pt(0, -90), poly(`[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]`)},
		{poly(`[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]`), poly(`[[-180, -90], [-180, 90], [180, 90], [180, -90], [-180, -90]]`)},
		{pt(0, 89.99999999999999), pt(180, -89.99999999999999)},
	}
	valid := 0
	for i := 0; i < 1200+len(tricky); i++ {
		var a, b string
		if i < len(tricky) {
			a, b = tricky[i][0], tricky[i][1]
		} else {
			a, b = geom(i%2 == 0), geom(i%3 == 0)
		}
		var ok bool
		var dist, area *float64
		var within, inter *bool
		var detail string
		err := pool.QueryRow(ctx, `SELECT cosmos.st_isvalid($1::jsonb) AND cosmos.st_isvalid($2::jsonb),
			cosmos.st_distance($1::jsonb, $2::jsonb), cosmos.st_within($1::jsonb, $2::jsonb),
			cosmos.st_intersects($1::jsonb, $2::jsonb), cosmos.st_area($1::jsonb), cosmos.st_isvaliddetailed($2::jsonb)::text`,
			a, b).Scan(&ok, &dist, &within, &inter, &area, &detail)
		if err != nil {
			t.Fatalf("%s, %s: %v", a, b, err)
		}
		if ok != (dist != nil) || ok != (within != nil) || ok != (inter != nil) {
			t.Errorf("%s, %s: valid %v but distance %v, within %v, intersects %v", a, b, ok, dist, within, inter)
		}
		if ok {
			valid++
			if *dist < 0 || math.IsNaN(*dist) || *area < 0 || *dist > 20004000 {
				t.Errorf("%s, %s: distance %v, area %v", a, b, *dist, *area)
			}
			if *inter && *dist != 0 {
				t.Errorf("%s, %s: intersects but distance %v", a, b, *dist)
			}
		}
	}
	if valid < 300 {
		t.Errorf("only %d pairs of valid geometries", valid)
	}
}
