package apispec

// Resource is one validated resource definition.
type Resource struct {
	// File is the name the resource was loaded from.
	File string `json:"-"`

	Kind         string       `json:"kind"`
	APIVersion   string       `json:"apiVersion"`
	Metadata     Metadata     `json:"metadata"`
	Methods      Methods      `json:"methods"`
	Descriptions Descriptions `json:"descriptions"`
	Schema       Schema       `json:"schema"`
	Security     *Security    `json:"security,omitempty"`
	AsyncAPI     *AsyncConfig `json:"asyncapi,omitempty"`

	// VersionInPathAlias is firestone's top-level versionInPath.
	VersionInPathAlias *bool `json:"versionInPath,omitempty"`
	// DefaultQueryParamsAlias is firestone's top-level default_query_params.
	DefaultQueryParamsAlias []QueryParam `json:"default_query_params,omitempty"`

	pos positions
}

// Metadata describes a resource.
type Metadata struct {
	Name          string `json:"name,omitempty"`
	Description   string `json:"description,omitempty"`
	Version       string `json:"version,omitempty"`
	VersionInPath *bool  `json:"version_in_path,omitempty"`
}

// Methods lists the HTTP methods (lower case) of the collection (Resource)
// and of each instance (Instance).
type Methods struct {
	Resource []string `json:"resource,omitempty"`
	Instance []string `json:"instance,omitempty"`
}

// Descriptions holds operation descriptions by level and method.
type Descriptions struct {
	Resource map[string]string `json:"resource,omitempty"`
	Instance map[string]string `json:"instance,omitempty"`
}

// Schema describes the collection: its key, its items and its query
// parameters.
type Schema struct {
	Type               string         `json:"type"`
	Key                *Key           `json:"key,omitempty"`
	Items              map[string]any `json:"items"`
	QueryParams        []QueryParam   `json:"query_params,omitempty"`
	DefaultQueryParams []QueryParam   `json:"default_query_params,omitempty"`
}

// Key names the path parameter that identifies an instance.
type Key struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
}

// QueryParam is a query parameter of the resource's operations.
type QueryParam struct {
	Name        string         `json:"name"`
	In          string         `json:"in,omitempty"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
	Default     any            `json:"default,omitempty"`
	Methods     []string       `json:"methods,omitempty"`
}

// Security holds the resource's security schemes and the methods, per
// level, that require one of them.
type Security struct {
	Scheme   map[string]map[string]any `json:"scheme"`
	Resource []string                  `json:"resource,omitempty"`
	Instance []string                  `json:"instance,omitempty"`
}

// AsyncConfig switches the resource's event operations on.
type AsyncConfig struct {
	Publish   bool                      `json:"publish,omitempty"`
	Subscribe bool                      `json:"subscribe,omitempty"`
	Servers   map[string]map[string]any `json:"servers,omitempty"`
	Channels  map[string]bool           `json:"channels,omitempty"`
}

// VersionInPath reports whether paths carry the /<apiVersion> prefix.
func (r *Resource) VersionInPath() bool {
	if r.Metadata.VersionInPath != nil {
		return *r.Metadata.VersionInPath
	}
	return r.VersionInPathAlias != nil && *r.VersionInPathAlias
}

// BasePath is the collection path: /<kind>, or /<apiVersion>/<kind>.
func (r *Resource) BasePath() string {
	if r.VersionInPath() {
		return "/" + r.APIVersion + "/" + r.Kind
	}
	return "/" + r.Kind
}

// InstancePath is the instance path /<kind>/{<key>}, or "" without a key.
func (r *Resource) InstancePath() string {
	if r.Schema.Key == nil {
		return ""
	}
	return r.BasePath() + "/{" + r.Schema.Key.Name + "}"
}

// defaultParams returns the default query parameters from either location.
func (r *Resource) defaultParams() []QueryParam {
	return append(append([]QueryParam(nil), r.Schema.DefaultQueryParams...), r.DefaultQueryParamsAlias...)
}

// publishes and subscribes apply firestone's channels alias.
func (r *Resource) publishes() bool {
	return r.AsyncAPI != nil && (r.AsyncAPI.Publish || r.anyChannel())
}

func (r *Resource) subscribes() bool {
	return r.AsyncAPI != nil && (r.AsyncAPI.Subscribe || r.anyChannel())
}

func (r *Resource) anyChannel() bool {
	for _, on := range r.AsyncAPI.Channels {
		if on {
			return true
		}
	}
	return false
}
