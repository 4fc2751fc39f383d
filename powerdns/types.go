package powerdns

import "encoding/json"

// The JSON shapes of the PowerDNS Authoritative API (OpenAPI document
// 0.0.x of the 5.x series), as far as this front end uses them.

// Server is a server object: GET /api/v1/servers[/localhost].
type Server struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	DaemonType string `json:"daemon_type"`
	Version    string `json:"version"`
	URL        string `json:"url"`
	ConfigURL  string `json:"config_url"`
	ZonesURL   string `json:"zones_url"`
}

// APIVersion is one item of GET /api.
type APIVersion struct {
	URL     string `json:"url"`
	Version int    `json:"version"`
}

// Zone is a zone object. Fields only a request carries (nameservers,
// zone, rrsets on create) and fields this front end ignores are accepted
// and dropped, as PowerDNS ignores unknown fields.
type Zone struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Type             string   `json:"type"`
	URL              string   `json:"url"`
	Kind             string   `json:"kind"`
	RRsets           *[]RRset `json:"rrsets,omitempty"`
	Serial           uint32   `json:"serial"`
	NotifiedSerial   uint32   `json:"notified_serial"`
	EditedSerial     uint32   `json:"edited_serial"`
	Masters          []string `json:"masters"`
	DNSSEC           bool     `json:"dnssec"`
	NSEC3Param       string   `json:"nsec3param"`
	NSEC3Narrow      bool     `json:"nsec3narrow"`
	Presigned        bool     `json:"presigned"`
	SOAEdit          string   `json:"soa_edit"`
	SOAEditAPI       string   `json:"soa_edit_api"`
	APIRectify       bool     `json:"api_rectify"`
	Account          string   `json:"account"`
	Catalog          string   `json:"catalog"`
	MasterTSIGKeyIDs []string `json:"master_tsig_key_ids"`
	SlaveTSIGKeyIDs  []string `json:"slave_tsig_key_ids"`
	LastCheck        int64    `json:"last_check"`
	RecordCount      *int     `json:"record_count,omitempty"`
}

// ZoneListItem is a zone in GET /zones: the fields PowerDNS lists
// (dnssec and edited_serial only without dnssec=false).
type ZoneListItem struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	URL            string   `json:"url"`
	Kind           string   `json:"kind"`
	Serial         uint32   `json:"serial"`
	NotifiedSerial uint32   `json:"notified_serial"`
	EditedSerial   *uint32  `json:"edited_serial,omitempty"`
	Masters        []string `json:"masters"`
	DNSSEC         *bool    `json:"dnssec,omitempty"`
	Account        string   `json:"account"`
	Catalog        string   `json:"catalog"`
	LastCheck      int64    `json:"last_check"`
}

// ZoneRequest is the body of POST /zones and PUT /zones/{id}: a zone
// object as clients send it. Pointers tell absent from empty.
type ZoneRequest struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Masters     []string `json:"masters"`
	Nameservers []string `json:"nameservers"`
	RRsets      []RRset  `json:"rrsets"`
	Serial      *uint32  `json:"serial"`
	SOAEditAPI  *string  `json:"soa_edit_api"`
	SOAEdit     *string  `json:"soa_edit"`
	Account     *string  `json:"account"`
	DNSSEC      *bool    `json:"dnssec"`
	NSEC3Param  *string  `json:"nsec3param"`
	NSEC3Narrow *bool    `json:"nsec3narrow"`
	Presigned   *bool    `json:"presigned"`
	APIRectify  *bool    `json:"api_rectify"`
	Catalog     *string  `json:"catalog"`
	Zone        *string  `json:"zone"`
	MasterTSIG  []string `json:"master_tsig_key_ids"`
	SlaveTSIG   []string `json:"slave_tsig_key_ids"`
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
}

// RRset is a resource record set. In a PATCH it carries a changetype.
type RRset struct {
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	TTL        *uint32   `json:"ttl,omitempty"`
	ChangeType *string   `json:"changetype,omitempty"`
	Records    []Record  `json:"records"`
	Comments   []Comment `json:"comments"`
}

// Record is one record of an RRset; content is in presentation format
// (TXT quoted, names absolute).
type Record struct {
	Content  string `json:"content"`
	Disabled bool   `json:"disabled"`
}

// Comment is a comment on an RRset.
type Comment struct {
	Content string `json:"content"`
	Account string `json:"account"`
	// ModifiedAt is a number, or a string of digits as PowerDNS also
	// reads it; checkComments refuses one outside 0…2^32-1.
	ModifiedAt json.Number `json:"modified_at,omitempty"`
}

// PatchRequest is the body of PATCH /zones/{id}.
type PatchRequest struct {
	RRsets *[]RRset `json:"rrsets"`
}

// Metadata is one kind of zone metadata.
type Metadata struct {
	Type     string   `json:"type,omitempty"`
	Kind     string   `json:"kind"`
	Metadata []string `json:"metadata"`
}

// Cryptokey is a DNSSEC key of a zone.
type Cryptokey struct {
	Type      string   `json:"type"`
	ID        int      `json:"id"`
	KeyType   string   `json:"keytype"`
	Flags     int      `json:"flags"`
	Active    bool     `json:"active"`
	Published bool     `json:"published"`
	DNSKey    string   `json:"dnskey"`
	DS        []string `json:"ds,omitempty"`
	Algorithm string   `json:"algorithm"`
	Bits      int      `json:"bits"`
}

// SearchResult is one item of GET /search-data: a zone or a record.
type SearchResult struct {
	ObjectType string  `json:"object_type"`
	Name       string  `json:"name"`
	ZoneID     string  `json:"zone_id"`
	Zone       string  `json:"zone,omitempty"`
	Type       string  `json:"type,omitempty"`
	TTL        *uint32 `json:"ttl,omitempty"`
	Disabled   *bool   `json:"disabled,omitempty"`
	Content    string  `json:"content,omitempty"`
}

// StatisticItem is one item of GET /statistics, and of GET /config
// (with type ConfigSetting).
type StatisticItem struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Result is the body of notify and axfr-retrieve.
type Result struct {
	Result string `json:"result"`
}

// ErrorBody is PowerDNS's error body.
type ErrorBody struct {
	Error  string   `json:"error"`
	Errors []string `json:"errors,omitempty"`
}
