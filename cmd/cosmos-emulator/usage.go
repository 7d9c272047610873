package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// usageHeader opens --help.
const usageHeader = `Usage: cosmos-emulator [flags]

Serves the Azure Cosmos DB for NoSQL REST API over PostgreSQL.

Each setting is taken from, strongest first: the command line, the
COSMOS_EMULATOR_<FLAG> variable, the variable of Microsoft's Linux emulator
image (where there is one), the default. Boolean flags take their value as
--flag, --flag=false or --flag false. Of the classic emulator's
AZURE_COSMOS_EMULATOR_* variables only AZURE_COSMOS_EMULATOR_KEY is read
(as --key); the others are ignored.

Flags:
`

// printUsage writes --help: every flag with its default and the
// environment variables that set it.
func printUsage(out io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	b.WriteString(usageHeader)
	fs.VisitAll(func(f *flag.Flag) {
		inner := *f
		if t, ok := f.Value.(*tracked); ok {
			inner.Value = t.Value
		}
		typ, usage := flag.UnquoteUsage(&inner)
		switch inner.Value.(type) {
		case *intRange:
			typ = "int"
		case *choice, *alias:
			typ = "string"
		case *stringList:
			typ = "list"
		}
		fmt.Fprintf(&b, "  --%s", f.Name)
		if typ != "" {
			fmt.Fprintf(&b, " %s", typ)
		}
		fmt.Fprintf(&b, "\n      %s", usage)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		if f.Name != "version" {
			vars := append([]string{ourEnv(f.Name)}, microsoftEnvOf(f.Name)...)
			fmt.Fprintf(&b, "\n      env: %s", strings.Join(vars, ", "))
		}
		b.WriteString("\n")
	})
	b.WriteString("  --help, -h\n      print this help and exit\n")
	io.WriteString(out, b.String()) //nolint:errcheck
}

// printVersion writes --version: the module version, VCS revision and Go
// version the binary was built with.
func printVersion(out io.Writer) {
	version, revision := server.BuildVersion()
	fmt.Fprintf(out, "cosmos-emulator %s (revision %s, %s)\n", version, revision, runtime.Version())
}

// undefinedFlagPrefix opens the flag package's error for a flag it does
// not know ("flag provided but not defined: -name"), which it builds with
// no error type of its own to match.
const undefinedFlagPrefix = "flag provided but not defined: -"

// withFlagHint rewrites the flag package's error for an unknown flag into
// one that names the flags meant most likely and --help, e.g. "unknown flag
// --protcol: did you mean --protocol? (--help lists the flags)"; other
// errors are returned unchanged.
func withFlagHint(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlagPrefix)
	if !ok {
		return err
	}
	msg := "unknown flag --" + name
	if close := closestFlags(fs, name); len(close) > 0 {
		last := len(close) - 1
		alts := "--" + close[last]
		if last > 0 {
			alts = "--" + strings.Join(close[:last], ", --") + " or " + alts
		}
		msg += ": did you mean " + alts + "?"
	}
	return fmt.Errorf("%s (--help lists the flags)", msg)
}

// closestFlags returns the flags of fs (and help) that name most likely
// means, at most three, in order: those it begins (a shortened name, at
// least three characters), else those within a small edit distance (a
// typo, "_" for "-", a letter missing or swapped); none when nothing is
// close, so that a hint is never a guess.
func closestFlags(fs *flag.FlagSet, name string) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	names = append(names, "help")
	lower := strings.ToLower(name)
	var prefixed []string
	if len(lower) >= 3 {
		for _, n := range names {
			if strings.HasPrefix(n, lower) {
				prefixed = append(prefixed, n)
			}
		}
	}
	if len(prefixed) > 0 {
		return firstN(prefixed, 3)
	}
	best, bestDist := []string(nil), max(1, min(3, len(lower)/3))
	for _, n := range names {
		d := editDistance(strings.ReplaceAll(lower, "_", "-"), n)
		switch {
		case d < bestDist:
			best, bestDist = []string{n}, d
		case d == bestDist:
			best = append(best, n)
		}
	}
	return firstN(best, 3)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and swaps of adjacent bytes, each
// costing 1).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
