package zoneservice

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The kinds of an import's failures, besides those of Create
// (zonemodel's).
var (
	ErrTooLarge      = zonemodel.ErrTooLarge
	ErrSource        = zonemodel.ErrSource
	ErrSourceTimeout = zonemodel.ErrSourceTimeout
)

// ImportSource is where an import reads its zone (zonemodel.ImportSource).
type ImportSource = zonemodel.ImportSource

// AXFRSource is a server to transfer a zone from (zonemodel.AXFRSource).
type AXFRSource = zonemodel.AXFRSource

// Imported describes a zone made by Import or Copy (zonemodel.Imported).
type Imported = zonemodel.Imported

// Import creates the primary zone name from a master file or by a zone
// transfer from another server: the zone is checked as named would check
// it (named-checkzone, when installed: see Checker), written as the
// checker wrote it and added like a zone of Create, all or nothing. fp
// is the request's fingerprint (see Create): a retry of the import that
// made the zone answers Existed. A file named would refuse is ErrInvalid
// with a *zonemodel.FileError (its line); a zone over the limits
// ErrTooLarge; a source that fails ErrSource or ErrSourceTimeout.
func (s *Service) Import(ctx context.Context, name string, src *ImportSource, fp string) (*Imported, error) {
	res, _, err := s.importZone(ctx, name, fp, false, importContent(s, name, src))
	return res, err
}

// Previewed is what a dry run of an import found (zonemodel.Previewed).
type Previewed = zonemodel.Previewed

// PreviewImport is Import's dry run: everything Import does before it
// creates the zone (the zone known not to exist here nor in named, the
// source read, the checks), and nothing written: no file, no index entry,
// no intent, no history, named not asked to add the zone. A zone made by
// an import of the same fingerprint answers Existed, as Import does. Its
// errors are Import's.
func (s *Service) PreviewImport(ctx context.Context, name string, src *ImportSource, fp string) (*Previewed, error) {
	res, data, err := s.importZone(ctx, name, fp, true, importContent(s, name, src))
	return preview(name, res, data, err)
}

// PreviewCopy is Copy's dry run, as PreviewImport is Import's.
func (s *Service) PreviewCopy(ctx context.Context, from, to, fp string) (*Previewed, error) {
	res, data, err := s.importZone(ctx, to, fp, true, s.copyContent(from, to))
	return preview(to, res, data, err)
}

// preview reads the file a dry run's checks wrote (data) into the
// records of zone name.
func preview(name string, res *Imported, data []byte, err error) (*Previewed, error) {
	if err != nil {
		return nil, err
	}
	if res.Existed {
		return &Previewed{Imported: *res}, nil
	}
	rrs, err := zonemodel.ParseZoneFile(name, data, zonemodel.MaxImportRecords)
	if err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the checked zone "+name, err)
	}
	return &Previewed{Imported: *res, RRsets: dnsupdate.RRsetsOf(name, rrs)}, nil
}

// importContent is the content of Import's zone: the file, or the
// records transferred from the source.
func importContent(s *Service, name string, src *ImportSource) func(context.Context) ([]byte, []dns.RR, error) {
	return func(ctx context.Context) ([]byte, []dns.RR, error) {
		switch {
		case src == nil || (src.File == nil) == (src.AXFR == nil):
			return nil, nil, newErr(ErrInvalid, name, "", "an import needs a zone file or a server to transfer from", nil)
		case src.File != nil:
			return src.File, nil, nil
		}
		rrs, err := s.transferIn(ctx, name, src.AXFR)
		return nil, rrs, err
	}
}

// Copy creates the primary zone to as a copy of the records of the zone
// from, which this service manages, read by AXFR from named; names inside
// from become names inside to (zonemodel.CopyRecords; DNSSEC records are
// left out). The copy has the configuration of a zone made by Create
// without options (the service's update key). It is checked, written and
// added as Import does.
func (s *Service) Copy(ctx context.Context, from, to, fp string) (*Imported, error) {
	res, _, err := s.importZone(ctx, to, fp, false, s.copyContent(from, to))
	return res, err
}

// copyContent is the content of Copy's zone: the records of from, read
// from named, renamed into to.
func (s *Service) copyContent(from, to string) func(context.Context) ([]byte, []dns.RR, error) {
	return func(ctx context.Context) ([]byte, []dns.RR, error) {
		if _, found, err := s.Store.Get(from); err != nil {
			return nil, nil, newErr(ErrStorage, from, "", "reading the zone index", err)
		} else if !found {
			return nil, nil, newErr(ErrNotFound, from, "", "zone "+from+" is not managed here, so it cannot be copied (import it by AXFR instead)", nil)
		}
		if s.Updater == nil {
			return nil, nil, newErr(ErrStorage, from, "", "copying zone "+from+": no DNS client to read it with", nil)
		}
		rrs, err := s.Updater.Client().Transfer(ctx, from)
		if err != nil {
			return nil, nil, readFailure(from, err)
		}
		return nil, zonemodel.CopyRecords(rrs, from, to), nil
	}
}

// readFailure is the error of a transfer of a zone of this service.
func readFailure(zone string, err error) error {
	if dnsupdate.IsRcode(err, dns.RcodeRefused) || dnsupdate.IsRcode(err, dns.RcodeNotAuth) {
		return newErr(ErrTransferRefused, zone, "", "named refused the transfer of zone "+zone, err)
	}
	if dnsupdate.IsRcode(err, dns.RcodeNotZone) || dnsupdate.IsRcode(err, dns.RcodeServerFailure) {
		return newErr(ErrNotFound, zone, "", "named does not serve zone "+zone, err)
	}
	return newErr(ErrSource, zone, "", "reading zone "+zone+" from named", err)
}

// importZone is Import and Copy: under the zone's lock, once the zone is
// known not to exist, content returns either a master file or records,
// which are checked and created; with dry, checked only, and the file
// the checks wrote returned.
func (s *Service) importZone(ctx context.Context, name, fp string, dry bool, content func(context.Context) ([]byte, []dns.RR, error)) (*Imported, []byte, error) {
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	settled, err := s.settle(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if c, err := s.existing(name, fp, settled); c != nil || err != nil {
		if c != nil {
			return &Imported{Created: *c}, nil, nil
		}
		return nil, nil, err
	}
	// A zone named has (from named.conf, say) is refused before the
	// transfer and the checks, which may take seconds.
	// (showzone answers for a zone named has but did not load, too.)
	if _, err := s.Control.ShowZoneStatement(ctx, name); err == nil {
		return nil, nil, newErr(ErrExists, name, "", "zone "+name+" already exists in named (not created through this API)", nil)
	} else if !rndc.IsNotFound(err) {
		if rndc.OutcomeUnknown(err) {
			return nil, nil, newErr(ErrOutcomeUnknown, name, "showzone", "asking named whether zone "+name+" exists", err)
		}
		return nil, nil, newErr(ErrControl, name, "showzone", "", err)
	}
	text, rrs, err := content(ctx)
	if err != nil {
		return nil, nil, err
	}
	res, data, err := s.checkImport(ctx, name, text, rrs)
	if err != nil {
		return nil, nil, err
	}
	if dry {
		return res, data, nil
	}
	z := &zonemodel.Zone{Name: name, Type: zonemodel.TypePrimary, Serial: res.Serial}
	path := s.Store.FilePath(name)
	c, err := s.createLocked(ctx, z, fp, data, AddZoneStatement(z, path, s.UpdateKey, s.Store.Dir()), settled, history.ZoneImported)
	if err != nil {
		return nil, nil, loadRefused(name, err)
	}
	res.Created = *c
	return res, data, nil
}

// checkImport checks a zone to import, given as a master file (text) or
// as records (rrs), and returns what it is and the file to write. The
// text is read by the API's own parser only (zonemodel.ParseZoneFileTo:
// $ORIGIN, $TTL and $GENERATE, no other directive, the limits counted
// as it parses); named-checkzone (Checker), when at hand, reads the
// records rendered from it as they are parsed (checkText), never the
// text a client wrote, and the file is what it wrote, its refusals
// naming the line of the text the record came from. Records from a transfer or a
// copy are checked by zonemodel.ImportedZone and rendered before
// named-checkzone reads them. Without named-checkzone, the records are
// checked (zonemodel.ImportedZone) and rendered by this package.
func (s *Service) checkImport(ctx context.Context, name string, text []byte, rrs []dns.RR) (*Imported, []byte, error) {
	invalid := func(err error) error { return newErr(kindOf(err), name, "", msgOf(name, err), err) }
	if text != nil && s.Checker.Available() {
		return s.checkText(ctx, name, text)
	}
	if text != nil {
		var err error
		if rrs, err = zonemodel.ParseZoneFile(name, text, zonemodel.MaxImportRecords); err != nil {
			return nil, nil, invalid(err)
		}
	} else if len(rrs) > zonemodel.MaxImportRecords {
		return nil, nil, invalid(&zonemodel.LimitError{Message: "the zone has more than 1000000 records"})
	}
	z, err := zonemodel.ImportedZone(name, rrs)
	if err != nil {
		return nil, nil, invalid(err)
	}
	data, err := z.RenderFile()
	if err != nil {
		return nil, nil, invalid(err)
	}
	if !s.Checker.Available() {
		return &Imported{Records: len(rrs), Serial: z.Serial, CheckedBy: "zoneapi"}, data, nil
	}
	res, err := s.Checker.Check(ctx, name, data, zonemodel.MaxImportRecords)
	return s.checked(name, res, err, nil, 0)
}

// checkText checks a master file a client sent with named-checkzone: the
// text is parsed here (zonemodel.ParseZoneFileTo) and the records
// rendered into a pipe that named-checkzone reads as they come, so that
// both parse at once.
func (s *Service) checkText(ctx context.Context, name string, text []byte) (*Imported, []byte, error) {
	pr, pw := io.Pipe()
	type parsed struct {
		lines []int
		first int
		err   error
	}
	done := make(chan parsed, 1)
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		_, lines, first, err := zonemodel.ParseZoneFileTo(name, text, zonemodel.MaxImportRecords, w)
		pw.CloseWithError(err) // nil: named-checkzone reads the end
		done <- parsed{lines, first, err}
	}()
	res, err := s.Checker.CheckReader(ctx, name, pr, zonemodel.MaxImportRecords)
	pr.CloseWithError(errors.New("named-checkzone stopped")) // ends the parse's writes
	p := <-done
	var fe *zonemodel.FileError
	var le *zonemodel.LimitError
	if errors.As(p.err, &fe) || errors.As(p.err, &le) {
		// The file's own refusal, whatever the checker made of the part
		// it read.
		return nil, nil, newErr(kindOf(p.err), name, "", msgOf(name, p.err), p.err)
	}
	return s.checked(name, res, err, p.lines, p.first)
}

// kindOf is the kind of a refused import: ErrTooLarge for a
// *zonemodel.LimitError, else ErrInvalid.
func kindOf(err error) error {
	var le *zonemodel.LimitError
	if errors.As(err, &le) {
		return ErrTooLarge
	}
	return ErrInvalid
}

// msgOf is the message of a refused import of the kind kindOf gives.
func msgOf(name string, err error) string {
	if kindOf(err) == ErrTooLarge {
		return "zone " + name + " is too large to import"
	}
	return "zone " + name + " was not imported"
}

// checked is the outcome of named-checkzone's check (res, err) of zone
// name: a refusal names the line of the file its record came from
// (lines, first: see sourceLine).
func (s *Service) checked(name string, res *zonecheck.Result, err error, lines []int, first int) (*Imported, []byte, error) {
	if err != nil {
		var fe *zonemodel.FileError
		var le *zonemodel.LimitError
		if errors.As(err, &fe) {
			err = sourceLine(fe, lines, first)
		}
		if errors.As(err, &fe) || errors.As(err, &le) {
			return nil, nil, newErr(kindOf(err), name, "", msgOf(name, err), err)
		}
		return nil, nil, newErr(ErrStorage, name, "", "checking zone "+name+" with named-checkzone", err)
	}
	warnings := res.Warnings
	if lines != nil {
		// A warning about one line names the file's line, as a refusal
		// does.
		warnings = make([]string, len(res.Warnings))
		for i, w := range res.Warnings {
			warnings[i] = w
			if n, text, ok := zonecheck.MessageLine(w); ok {
				fe := sourceLine(&zonemodel.FileError{Line: n, Message: text}, lines, first)
				warnings[i] = fe.Error()
			}
		}
	}
	return &Imported{Records: res.Records, Serial: res.Serial, CheckedBy: "named-checkzone", Warnings: warnings}, res.Text, nil
}

// sourceLine returns named-checkzone's refusal of a rendered file with
// the line of the text its record came from: line first of the rendered
// file is record 0, which starts on lines[0]. Without lines (records of
// a transfer) or on a line that is no record's, the refusal names no
// line.
func sourceLine(fe *zonemodel.FileError, lines []int, first int) *zonemodel.FileError {
	out := *fe
	if i := fe.Line - first; lines != nil && i >= 0 && i < len(lines) {
		out.Line = lines[i]
	} else {
		out.Line = 0
	}
	return &out
}

// transferIn transfers the zone from the source, classifying failures.
func (s *Service) transferIn(ctx context.Context, name string, src *AXFRSource) ([]dns.RR, error) {
	if _, _, err := net.SplitHostPort(src.Address); err != nil {
		return nil, newErr(ErrInvalid, name, "", "the server to transfer from must be host:port", err)
	}
	timeout := src.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if _, err := dnsupdate.NewClient(src.Address, src.Key, timeout); err != nil {
		return nil, newErr(ErrInvalid, name, "", "the transfer's TSIG key", err)
	}
	rrs, err := dnsupdate.TransferFrom(ctx, src.Address, src.Key, name, timeout, zonemodel.MaxImportRecords)
	if err == nil {
		return rrs, nil
	}
	if dnsupdate.TooLarge(err) {
		return nil, newErr(ErrTooLarge, name, "", "the transfer of zone "+name+" from "+src.Address+" was cut off: more than 1,000,000 records or 512 MiB", err)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return nil, newErr(ErrSourceTimeout, name, "", "the transfer of zone "+name+" from "+src.Address+" did not finish in time", err)
	}
	var de *dnsupdate.DialError
	if errors.As(err, &de) {
		return nil, newErr(ErrSource, name, "", "cannot reach "+src.Address+" to transfer zone "+name, err)
	}
	return nil, newErr(ErrSource, name, "", src.Address+" did not transfer zone "+name, err)
}

// loadRefused turns an addzone that named refused because the zone does
// not load ("dns_zone_loadnew failed: CNAME and other data") into the
// refusal of the zone, ErrInvalid with a *zonemodel.FileError: the checks
// named makes and the service's own did not (without named-checkzone).
// createLocked has undone the import. Other errors are returned as they
// are.
func loadRefused(name string, err error) error {
	var le *Error
	var re *rndc.Error
	if !errors.As(err, &le) || le.Kind != ErrControl || le.Command != "addzone" || !errors.As(err, &re) {
		return err
	}
	_, why, ok := strings.Cut(re.Text, "dns_zone_loadnew failed: ")
	if !ok {
		return err
	}
	return newErr(ErrInvalid, name, "addzone", "zone "+name+" was not imported",
		&zonemodel.FileError{Message: "named refused to load the zone: " + strings.TrimSpace(why)})
}
