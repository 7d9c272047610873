package pgstore

import (
	"context"
	"testing"
)

// TestSafeMathHelpers runs the helpers of migrations 0022 and 0024 on a real
// PostgreSQL: IEEE results (an infinity, NaN, zero) where PostgreSQL's own
// operators raise ("value out of range: overflow", "input is out of
// range"), and ECMAScript's ToInt32 where the numeric cast rounded to 15
// digits. The expected values are JavaScript's (node), printed as
// PostgreSQL prints a double.
func TestSafeMathHelpers(t *testing.T) {
	s := openStore(t)
	for _, c := range []struct{ expr, want string }{
		// ToInt32 (JavaScript: x | 0)
		{"cosmos.i32f(1234567890123457)", "1015724737"},
		{"cosmos.i32f(9007199254740993)", "0"},
		{"cosmos.i32f(-1234567890123457)", "-1015724737"},
		{"cosmos.i32f(1e21)", "-559939584"},
		{"cosmos.i32f(-1e21)", "559939584"},
		{"cosmos.i32f(4294967296.5)", "0"},
		{"cosmos.i32f(-2147483649)", "2147483647"},
		{"cosmos.i32f(2147483648)", "-2147483648"},
		{"cosmos.i32f(-1.9)", "-1"},
		{"cosmos.i32f(1.7976931348623157e308)", "0"},
		{"cosmos.i32f('NaN')", "0"},
		{"cosmos.i32f('-Infinity')", "0"},
		{"cosmos.i32('1234567890123457'::jsonb)", "1015724737"},
		{"cosmos.i32('\"1\"'::jsonb) IS NULL", "true"},
		// + - * / beyond the double range
		{"cosmos.mul8(1e308, 10)", "Infinity"},
		{"cosmos.mul8(-1e308, 10)", "-Infinity"},
		{"cosmos.mul8(1e-300, 1e-300)", "0"},
		{"cosmos.mul8(1e-300, 1e-23)", "1e-323"},
		{"cosmos.mul8(1e300, 1e-10)", "1e+290"},
		{"cosmos.mul8(0.1, 3)", "0.30000000000000004"},
		{"cosmos.mul8(1e308, 'NaN')", "NaN"},
		{"cosmos.add8(1e308, 1e308)", "Infinity"},
		{"cosmos.add8(1.7976931348623157e308, 1e292)", "Infinity"},
		{"cosmos.add8(0.1, 0.2)", "0.30000000000000004"},
		{"cosmos.sub8(-1e308, 1e308)", "-Infinity"},
		{"cosmos.div8(1e300, 1e-300)", "Infinity"},
		{"cosmos.div8(5e-324, 2)", "0"},
		{"cosmos.div8(1e-320, 1e10)", "0"},
		{"cosmos.div8(1e300, 1e10)", "1e+290"},
		{"cosmos.div8(-1.5e-323, 1e300)", "-0"},
		{"cosmos.div8(1.5e-323, 4)", "5e-324"},
		{"cosmos.div8(1e300, 1e-200)", "Infinity"},
		{"cosmos.div8(1e-200, 1e200)", "0"},
		{"cosmos.div8(1e-200, 1e100)", "1e-300"},
		{"cosmos.div8(1, 0)", "Infinity"},
		{"cosmos.div8(0, 0)", "NaN"},
		{"cosmos.mod8(1e308, 1e-308) >= 0", "true"},
		{"cosmos.mod8(-5.5, 2)", "-1.5"},
		{"cosmos.mod8(1, 0)", "NaN"},
		// functions
		{"cosmos.exp8(1000)", "Infinity"},
		{"cosmos.exp8(-1000)", "0"},
		{"abs(cosmos.exp8(709.5) / 1.3549863193146327e308 - 1) < 1e-15", "true"}, // within an ulp or two of JavaScript's
		{"cosmos.exp8(1)", "2.718281828459045"},
		{"cosmos.pow8(10, 400)", "Infinity"},
		{"cosmos.pow8(-10, 309)", "-Infinity"},
		{"cosmos.pow8(-10, 310)", "Infinity"},
		{"cosmos.pow8(0.1, 400)", "0"},
		{"cosmos.pow8(0, -1)", "Infinity"},
		{"cosmos.pow8(-8, 0.5)", "NaN"},
		{"cosmos.pow8(1e300, 1e300)", "Infinity"},
		{"cosmos.pow8(2, 0.5)", "1.4142135623730951"},
		{"cosmos.pow8(2, -1074)", "5e-324"},
		{"cosmos.acos8(2)", "NaN"},
		{"cosmos.acos8(-1)", "3.141592653589793"},
		{"cosmos.asin8(-2)", "NaN"},
		{"cosmos.number_bin(1e308, 1e-308)", "Infinity"},
		{"cosmos.number_bin(7, 2)", "6"},
		// undefined (NULL) in, undefined out
		{"cosmos.pow8(NULL, 3) IS NULL AND cosmos.pow8(2, NULL) IS NULL AND cosmos.exp8(NULL) IS NULL", "true"},
		{"cosmos.mul8(NULL, 1e300) IS NULL AND cosmos.add8(1e308, NULL) IS NULL AND cosmos.sub8(NULL, NULL) IS NULL", "true"},
		{"cosmos.div8(1e300, NULL) IS NULL AND cosmos.div8(NULL, 1e-300) IS NULL AND cosmos.mod8(NULL, 1e-300) IS NULL", "true"},
		{"cosmos.i32f(NULL) IS NULL AND cosmos.acos8(NULL) IS NULL AND cosmos.number_bin(NULL, 2) IS NULL", "true"},
		{"cosmos.nf8(1e400)", "Infinity"},
		{"cosmos.nf8(1e-400)", "0"},
		// migration 0024: non-finite operands as JavaScript takes them
		// (PostgreSQL's NaN equals itself and is above every number; its
		// sin, cos, tan, cot raise for an infinity)
		{"cosmos.mod8(2, 'NaN')", "NaN"},
		{"cosmos.mod8(2, '-Infinity')", "2"},
		{"cosmos.mod8('Infinity', 2)", "NaN"},
		{"cosmos.sign8('NaN')", "NaN"},
		{"cosmos.sign8('-Infinity')", "-1"},
		{"sin(cosmos.nan_inf('Infinity'))", "NaN"},
		{"cot(cosmos.nan_inf('-Infinity'))", "NaN"},
		{"cosmos.eq8('NaN', 'NaN')", "false"},
		{"cosmos.eq8('Infinity', 'Infinity')", "true"},
		{"cosmos.eq8j('Infinity', '1')", "false"},
		{"cosmos.eq8j(1, '1.0')", "true"},
		{"cosmos.eq8j(1, '\"1\"')", "false"},
		{"cosmos.cmp8('NaN', 1, '<')", "false"},
		{"cosmos.cmp8('NaN', 'NaN', '>=')", "false"},
		{"cosmos.cmp8('Infinity', 1e308, '>')", "true"},
		{"cosmos.cmp8('-Infinity', '-Infinity', '<=')", "true"},
		{"cosmos.between8(1, '-Infinity', 'Infinity')", "true"},
		{"cosmos.between8('NaN', '-Infinity', 'Infinity')", "false"},
		{"cosmos.finite8('NaN')", "false"},
		{"cosmos.finite8('-Infinity')", "false"},
		{"cosmos.finite8(1e308)", "true"},
		{"cosmos.finite8(NULL)", "false"},
		{"cosmos.eq8(NULL, 1) IS NULL AND cosmos.eq8j('NaN', NULL) IS NULL AND cosmos.cmp8('NaN', NULL, '<') IS NULL AND cosmos.sign8(NULL) IS NULL", "true"},
	} {
		var got string
		if err := s.Pool().QueryRow(context.Background(), "SELECT ("+c.expr+")::text").Scan(&got); err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}
