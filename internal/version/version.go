// Package version holds the one version number of zoneapi: the health
// endpoint, the zoneapi_build_info metric and info.version of the served
// API specification all report it.
package version

// Version is the version of zoneapi.
const Version = "0.1.0"
