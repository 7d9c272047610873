package compat_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// geoPoint is a GeoJSON Point as the SDK's callers write one.
func geoPoint(lon, lat float64) map[string]any {
	return map[string]any{"type": "Point", "coordinates": []float64{lon, lat}}
}

// geoPolygon is a GeoJSON Polygon of the given rings.
func geoPolygon(rings ...[][2]float64) map[string]any {
	return map[string]any{"type": "Polygon", "coordinates": rings}
}

// TestSpatialQueries: offices with locations around Redmond, queried
// through the SDK with geometries as parameters, within one partition.
// The distances from the reference point (GeographicLib, WGS-84): hq
// 3345 m, east 3021 m, bellevue 9092 m, fargo 1907 km, near-other-pk
// 199 m (but in another partition).
func TestSpatialQueries(t *testing.T) {
	t.Parallel()
	env := newQueryEnv(t, []map[string]any{
		{"id": "hq", "pk": "wa", "location": geoPoint(-122.12826822304672, 47.63980239335718)},
		{"id": "east", "pk": "wa", "location": geoPoint(-122.1220, 47.6420)},
		{"id": "bellevue", "pk": "wa", "location": geoPoint(-122.2015, 47.6101)},
		{"id": "fargo", "pk": "wa", "location": geoPoint(-96.84368664765994, 46.81297794314663)},
		{"id": "no-location", "pk": "wa"},
		{"id": "bad-location", "pk": "wa", "location": geoPoint(-122.12, 100)},
		{"id": "string-location", "pk": "wa", "location": "47.64, -122.12"},
		{"id": "near-other-pk", "pk": "or", "location": geoPoint(-122.1176, 47.6708)},
	})
	ref := geoPoint(-122.11758113953535, 47.66901087006131)
	campus := geoPolygon([][2]float64{
		{-122.13236581015025, 47.64606476313813}, {-122.13221982500913, 47.633757091363975},
		{-122.11840598103835, 47.641749416109235}, {-122.12061400629656, 47.64589264786028},
		{-122.13236581015025, 47.64606476313813},
	})
	// the campus with a hole around east
	campusHole := geoPolygon(campus["coordinates"].([][][2]float64)[0], [][2]float64{
		{-122.1230, 47.6410}, {-122.1230, 47.6430}, {-122.1210, 47.6430}, {-122.1210, 47.6410}, {-122.1230, 47.6410},
	})
	wa := azcosmos.NewPartitionKeyString("wa")
	tests := []struct {
		name   string
		query  string
		params []azcosmos.QueryParameter
		want   []string
	}{
		{"ST_DISTANCE under 5 km", `SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, @p) < 5000`,
			[]azcosmos.QueryParameter{{Name: "@p", Value: ref}}, []string{"east", "hq"}},
		{"ST_DISTANCE under 10 km", `SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, @p) < 10000`,
			[]azcosmos.QueryParameter{{Name: "@p", Value: ref}}, []string{"bellevue", "east", "hq"}},
		{"ST_DISTANCE in kilometres", `SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, @p) / 1000 BETWEEN 1900 AND 1910`,
			[]azcosmos.QueryParameter{{Name: "@p", Value: ref}}, []string{"fargo"}},
		{"ST_WITHIN a polygon", `SELECT VALUE c.id FROM c WHERE ST_WITHIN(c.location, @polygon)`,
			[]azcosmos.QueryParameter{{Name: "@polygon", Value: campus}}, []string{"east", "hq"}},
		{"ST_WITHIN a polygon with a hole", `SELECT VALUE c.id FROM c WHERE ST_WITHIN(c.location, @polygon)`,
			[]azcosmos.QueryParameter{{Name: "@polygon", Value: campusHole}}, []string{"hq"}},
		{"NOT ST_WITHIN keeps only valid locations", `SELECT VALUE c.id FROM c WHERE NOT ST_WITHIN(c.location, @polygon)`,
			[]azcosmos.QueryParameter{{Name: "@polygon", Value: campus}}, []string{"bellevue", "fargo"}},
		{"ST_INTERSECTS", `SELECT VALUE c.id FROM c WHERE ST_INTERSECTS(@polygon, c.location)`,
			[]azcosmos.QueryParameter{{Name: "@polygon", Value: campusHole}}, []string{"hq"}},
		{"ST_ISVALID", `SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.location) AND NOT ST_ISVALID(c.location)`,
			nil, []string{"bad-location", "string-location"}},
		{"ST_ISVALIDDETAILED", `SELECT VALUE ST_ISVALIDDETAILED(c.location).reason FROM c WHERE c.id = "bad-location"`,
			nil, []string{"Latitude values must be between -90 and 90 degrees."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := env.run(t, tt.query, &wa, &azcosmos.QueryOptions{QueryParameters: tt.params})
			if err != nil {
				t.Fatalf("%s: %v", tt.query, err)
			}
			var ids []string
			for _, raw := range got {
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatalf("%s: result %s: %v", tt.query, raw, err)
				}
				ids = append(ids, s)
			}
			sort.Strings(ids)
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("%s\n got %q\nwant %q", tt.query, ids, tt.want)
			}
		})
	}
	// ST_AREA of the campus through a projection (GeographicLib: 916842.0265 m²)
	got, _, err := env.run(t, `SELECT VALUE ROUND(ST_AREA(@polygon))`, &wa, &azcosmos.QueryOptions{
		QueryParameters: []azcosmos.QueryParameter{{Name: "@polygon", Value: campus}}})
	if err != nil || len(got) != 1 || string(got[0]) != "916842" {
		t.Errorf("ST_AREA of the campus: %s, %v; want 916842", got, err)
	}
}
