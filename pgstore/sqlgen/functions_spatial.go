package sqlgen

// Spatial functions over GeoJSON values (Point, LineString, Polygon,
// MultiPolygon; coordinates [longitude, latitude]) with the Geography
// model of a container's default geospatialConfig: the WGS-84 ellipsoid,
// metres and square metres (a container configured for Geometry is
// computed the same way). The work is done by the SQL functions of
// migration 0006_spatial.sql, which also list the validity reasons and
// detail the approximations:
//
//   - ST_DISTANCE between points is the WGS-84 geodesic (Karney's
//     algorithm, exact to round-off; the service's values differ by a few
//     parts in 1e8). Between other geometries it is 0 when they
//     intersect, else the least distance from a vertex of one to an edge
//     of the other, the nearest point of an edge being found by search
//     (within about 1e-10 relative of the exact minimum).
//   - ST_WITHIN and ST_INTERSECTS take edges as straight lines in
//     longitude/latitude (the service uses geodesic edges), not crossing
//     the antimeridian; polygons may have holes; a clockwise exterior
//     ring stands for the region outside it.
//   - ST_AREA is the geodesic area of polygons (holes subtracted), exact
//     to round-off; 0 for points and lines.
//
// Any argument that is not a valid geometry makes the result undefined,
// except for ST_ISVALID (false) and ST_ISVALIDDETAILED ({"valid": false,
// "reason": ...}).

// spatial2 translates a spatial function of two geometries to the SQL
// function sqlFn, whose result conv turns into a Cosmos value.
func spatial2(sqlFn, conv string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		return conv + "(cosmos." + sqlFn + "(" + a[0] + ", " + a[1] + "))"
	}
}

func init() {
	register(map[string]fn{
		"ST_DISTANCE":   {2, 2, spatial2("st_distance", "cosmos.f8")},
		"ST_WITHIN":     {2, 2, spatial2("st_within", "to_jsonb")},
		"ST_INTERSECTS": {2, 2, spatial2("st_intersects", "to_jsonb")},
		"ST_AREA": {1, 1, func(t *translator, a []string) string {
			return "cosmos.f8(cosmos.st_area(" + a[0] + "))"
		}},
		"ST_ISVALID": {1, 1, func(t *translator, a []string) string {
			return "to_jsonb(cosmos.st_isvalid(" + a[0] + "))"
		}},
		"ST_ISVALIDDETAILED": {1, 1, func(t *translator, a []string) string {
			return "cosmos.st_isvaliddetailed(" + a[0] + ")"
		}},
	})
}
