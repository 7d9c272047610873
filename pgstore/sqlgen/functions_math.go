package sqlgen

// Mathematical functions beyond the basic ones of functions.go.

// int64Op translates an INT* function: integer arguments within the signed
// 64-bit range (anything else is undefined), 64-bit two's complement
// results (overflow wraps around, as in C#). expr combines the arguments,
// given as numeric SQL expressions.
func int64Op(expr func(x, y string) string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		return "to_jsonb(cosmos.wrap64(" + expr("cosmos.i64("+a[0]+")", "cosmos.i64("+a[1]+")") + "))"
	}
}

// int64Bits translates an INTBIT* function: like int64Op, with the
// arguments as bigint (cosmos.i64 keeps them in range, so the casts never
// raise).
func int64Bits(expr func(x, y string) string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		y := ""
		if len(a) > 1 {
			y = "cosmos.i64(" + a[1] + ")::bigint"
		}
		return "to_jsonb(" + expr("cosmos.i64("+a[0]+")::bigint", y) + ")"
	}
}

func init() {
	register(map[string]fn{
		"COT": {1, 1, trig("cot")},
		// ATN2(y, x), the first argument being y (reference §6.10).
		"ATN2": {2, 2, func(t *translator, a []string) string {
			return t.f8("atan2(" + t.num(a[0]) + ", " + t.num(a[1]) + ")")
		}},
		"LOG": {1, 2, func(t *translator, a []string) string {
			if len(a) == 2 {
				return t.f8("cosmos.log_base(" + t.num(a[0]) + ", " + t.num(a[1]) + ")")
			}
			return t.f8("cosmos.ln8(" + t.num(a[0]) + ")")
		}},
		"NUMBERBIN": {1, 2, func(t *translator, a []string) string {
			size := "1::double precision"
			if len(a) == 2 {
				size = t.num(a[1])
			}
			return t.f8("cosmos.number_bin(" + t.num(a[0]) + ", " + size + ")")
		}},
		"RAND": {0, 0, func(t *translator, a []string) string { return "cosmos.f8(random())" }},

		"INTADD": {2, 2, int64Op(func(x, y string) string { return x + " + " + y })},
		"INTSUB": {2, 2, int64Op(func(x, y string) string { return x + " - " + y })},
		"INTMUL": {2, 2, int64Op(func(x, y string) string { return x + " * " + y })},
		// INTDIV truncates toward zero; INTMOD has the sign of the dividend;
		// both are undefined for a zero divisor.
		"INTDIV": {2, 2, int64Op(func(x, y string) string { return "div(" + x + ", NULLIF(" + y + ", 0))" })},
		"INTMOD": {2, 2, int64Op(func(x, y string) string { return "mod(" + x + ", NULLIF(" + y + ", 0))" })},

		"INTBITAND": {2, 2, int64Bits(func(x, y string) string { return x + " & " + y })},
		"INTBITOR":  {2, 2, int64Bits(func(x, y string) string { return x + " | " + y })},
		"INTBITXOR": {2, 2, int64Bits(func(x, y string) string { return x + " # " + y })},
		"INTBITNOT": {1, 1, int64Bits(func(x, _ string) string { return "~" + x })},
		// Shift counts are taken modulo 64, as C# does for long.
		"INTBITLEFTSHIFT":  {2, 2, int64Bits(func(x, y string) string { return x + " << (" + y + " & 63)::integer" })},
		"INTBITRIGHTSHIFT": {2, 2, int64Bits(func(x, y string) string { return x + " >> (" + y + " & 63)::integer" })},
	})
}
