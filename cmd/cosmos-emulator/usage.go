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
--flag, --flag=false or --flag false. Microsoft's AZURE_COSMOS_EMULATOR_*
variables of the classic emulator are ignored.

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
