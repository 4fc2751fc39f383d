package zoneservice

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// RecordPage is ListRecords as a front end reads it: the serial of the
// snapshot the page comes from, the page's RRsets and the next page's
// cursor. Errors as ListRecords'.
func (s *Service) RecordPage(ctx context.Context, zone string, opt zonemodel.ListOptions) (serial uint32, sets []zonemodel.RRset, next string, err error) {
	snap, sets, next, err := s.Records().ListRecords(ctx, zone, opt)
	if err != nil {
		return 0, nil, "", err
	}
	return snap.Serial(), sets, next, nil
}

// ZoneFile is Snapshot as a front end reads it: the zone's serial and
// its master-file text, rendered when text is called (a conditional
// read that answers 304 renders nothing). Errors as Snapshot's.
func (s *Service) ZoneFile(ctx context.Context, zone string) (serial uint32, text func() []byte, err error) {
	snap, err := s.Records().Snapshot(ctx, zone)
	if err != nil {
		return 0, nil, err
	}
	return snap.Serial(), snap.MasterFile, nil
}
