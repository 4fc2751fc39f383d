// Package speccmd registers `caddy zoneapi-spec`, the command-line tool of
// the resource-definition format of package apispec: it validates
// resource files and prints the OpenAPI or AsyncAPI documents generated from
// them. Importing the package (the zone_api module does) adds the command
// to a Caddy build.
package speccmd

import (
	"fmt"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "zoneapi-spec",
		Usage: "validate|openapi|asyncapi [--format json|yaml] <file>...",
		Short: "Validates resource-definition files and generates OpenAPI or AsyncAPI from them",
		Long: `
Works with the zoneapi resource-definition format (YAML files describing a
REST resource: kind, apiVersion, metadata, methods, descriptions, schema,
security, asyncapi), the format the zone_api module's own specification
is generated from.

  caddy zoneapi-spec validate FILE...
      checks every file and prints every error as file:line:column.
  caddy zoneapi-spec openapi FILE... [--format json|yaml]
      prints the OpenAPI 3.1 document of the files (validated by kin-openapi).
  caddy zoneapi-spec asyncapi FILE... [--format json|yaml]
      prints the AsyncAPI 3.0 document of the files whose asyncapi block
      enables publish or subscribe.
  caddy zoneapi-spec metaschema
      prints the JSON Schema the files are checked against.

Invalid input prints the errors to stderr and exits with status 1.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Args = cobra.MinimumNArgs(1)
			cmd.Flags().String("format", "json", "output format of openapi and asyncapi: json or yaml")
			cmd.Flags().String("title", "API", "info.title of generated documents")
			cmd.Flags().String("version", "", "info.version of generated documents (default: the first file's metadata.version)")
			cmd.Flags().StringSlice("server", nil, "server URL of generated documents (repeatable)")
			cmd.RunE = runSpecCommand
		},
	})
}

// runSpecCommand runs `caddy zoneapi-spec`.
func runSpecCommand(cmd *cobra.Command, args []string) error {
	cmd.SilenceUsage = true
	sub, files := args[0], args[1:]
	if sub == "metaschema" {
		_, err := cmd.OutOrStdout().Write(apispec.MetaSchema())
		return err
	}
	switch sub {
	case "validate", "openapi", "asyncapi":
	default:
		return fmt.Errorf("unknown subcommand %q: want validate, openapi, asyncapi or metaschema", sub)
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no resource files given", sub)
	}
	format, _ := cmd.Flags().GetString("format")
	if format != "json" && format != "yaml" {
		return fmt.Errorf("--format: want json or yaml, got %q", format)
	}
	rs, err := apispec.LoadFiles(files...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		cmd.SilenceErrors = true
		if list, ok := err.(apispec.ErrorList); ok {
			return fmt.Errorf("%d errors", len(list))
		}
		return err
	}
	title, _ := cmd.Flags().GetString("title")
	version, _ := cmd.Flags().GetString("version")
	servers, _ := cmd.Flags().GetStringSlice("server")
	opt := apispec.Options{Title: title, Version: version, Servers: servers}
	var out []byte
	switch sub {
	case "validate":
		fmt.Fprintf(cmd.OutOrStdout(), "%d resource files are valid\n", len(rs))
		return nil
	case "openapi":
		d, err := apispec.OpenAPI(rs, opt)
		if err != nil {
			return err
		}
		out = d.JSON()
		if format == "yaml" {
			out = d.YAML()
		}
	case "asyncapi":
		out, err = apispec.AsyncAPI(rs, opt)
		if err != nil {
			return err
		}
		if format == "yaml" {
			out = apispec.YAML(out)
		}
	}
	_, err = cmd.OutOrStdout().Write(out)
	return err
}
