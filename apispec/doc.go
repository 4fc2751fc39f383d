// Package apispec implements zoneapi's resource-definition format: YAML
// files that describe a REST resource (a collection /{kind} and its
// instances /{kind}/{id}), a validator that reports every error with its
// file, line and column, and generators of OpenAPI 3.1 and AsyncAPI 3.0
// documents.
//
// The format is the one of the service specification, a dialect of
// firestone's. Each file is checked against an embedded JSON Schema 2020-12
// meta-schema (metaschema.yaml) and then against the rules in rules.go.
// firestone's own spellings load as aliases: a top-level versionInPath for
// metadata.version_in_path, a top-level default_query_params for
// schema.default_query_params, metadata.name, a parameter-level default
// (moved into the parameter's schema), and asyncapi.servers and
// asyncapi.channels (any enabled channel level turns on both publish and
// subscribe, as firestone emits both).
//
// Semantics where firestone is buggy or silent:
//
//   - metadata.version_in_path prefixes paths with /<apiVersion> exactly as
//     written: apiVersion v1 gives /v1/zones, never /vv1/zones.
//   - A path parameter is emitted only for a {name} template in the path; a
//     kind that contains the key's name (zones, zone) gets none on /zones.
//   - An omitted or empty method list means no operations at that level.
//     post is a collection method and put and patch are instance methods;
//     listing them at the other level is an error.
//   - schema.query_params belong to the collection operations whose
//     methods they list (all collection operations when methods is
//     omitted); default_query_params are added to every GET, collection and
//     instance, with the resource's own parameters winning on a name clash.
//   - POST and PUT take the item schema with its required list; PATCH takes
//     a JSON Merge Patch (RFC 7396, application/merge-patch+json) whose
//     schema is the item schema without required lists.
//   - Security schemes of all files are merged (one name, one definition);
//     an operation listed at its level requires any one of the resource's
//     schemes; a security block without method lists secures every
//     operation of the resource.
//   - Component names are the kind in PascalCase, singularised by a small
//     English rule (zones: Zone, postal_codes: PostalCode, status: Status).
//
// The package knows nothing of Caddy; the zone_api module serves the
// document built by Service.
package apispec
