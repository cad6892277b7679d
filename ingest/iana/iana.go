// Package iana is the zone metadata source: every delegated top-level
// domain with its IANA type and the categories people browse it by, plus
// the common commercial second-level zones under them (.co.uk, .com.au).
// It publishes zone metadata only, no prices.
//
// Live, it reads two documents IANA publishes:
//
//   - https://data.iana.org/TLD/tlds-alpha-by-domain.txt, the authoritative
//     list of delegated TLDs: a first line "# Version 2026112200, Last
//     Updated Sun Nov 22 07:07:01 2026 UTC", then one upper-case A-label per
//     line ("COM", "XN--P1AI").
//   - https://www.iana.org/domains/root/db, the Root Zone Database page: an
//     HTML table (id "tld-table") with a row per TLD, the TLD as a link to
//     its page (<span class="domain tld"><a
//     href="/domains/root/db/com.html">.com</a></span>), then its type
//     (<td>generic</td>), then its manager.
//
// Decisions about the formats:
//
//   - The TLD list decides what is delegated; the page gives the types.
//     A TLD in the list that the page does not type is left out (and
//     logged): its type is unknown, and it appears once the page catches
//     up. If the page types fewer than half the listed TLDs the two are out
//     of step or the page changed, and the fetch fails.
//   - The page keeps TLDs that are no longer delegated: retired ones (TLD
//     manager "Not assigned") and the eleven IDN test TLDs of 2007 (type
//     "test"). They are not in the TLD list, so they are left out. A row
//     with a type this package does not know is treated as untyped.
//   - A row's zone is read from its link, which names the A-label; the
//     link text is the Unicode form, wrapped in direction marks (U+200F,
//     U+200E) for right-to-left names, and is read only when a row has no
//     link. The HTML is read with a tokenizer, so comments, attributes,
//     missing </tr> and </td> tags and entities are all tolerated.
//   - A TLD list without its version line or final newline, a page with no
//     TLD rows or whose table does not close, are errors: never a partial
//     catalog. A line or row that is individually unusable is skipped. A
//     list cut at a line boundary parses, but the page shows it: when the
//     page assigns (gives a type and a manager) more TLDs missing from the
//     list than a twentieth of the list's length, the fetch fails. A few
//     are normal: the two documents are not updated at the same instant.
//   - Second-level zones are not in either document. They come from the
//     builtin catalog (the Public Suffix List's co, com, net and org under
//     a TLD) when their TLD is delegated, and take its type.
//
// Offline default: when either document cannot be fetched or parsed, Fetch
// does not fail. It logs a warning and returns the builtin catalog, built
// from the Public Suffix List bundled with github.com/weppos/publicsuffix-go
// with types by rule; its events carry source "builtin" instead of "iana",
// so consumers can tell the two apart. Once a live fetch has succeeded, a
// later failure is returned as an error instead, so that the live
// metadata on the stream stays rather than being overwritten by the
// builtin's. Config.Offline skips the network altogether.
//
// Categories, for both catalogs, follow contracts.Categories: the zone's
// IANA type; the overlays by rule (second-level, idn, cctld-as-generic from
// its list, legacy-gtld, new-gtld for every other generic TLD); then each
// thematic category whose list has the zone.
package iana

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// Name is the source's name and the source of live metadata.
const Name = "iana"

// The documents IANA publishes.
const (
	DefaultTLDsURL   = "https://data.iana.org/TLD/tlds-alpha-by-domain.txt"
	DefaultRootDBURL = "https://www.iana.org/domains/root/db"
)

// DefaultURL is the source's main document, the list of delegated TLDs.
const DefaultURL = DefaultTLDsURL

// Config configures a Source.
type Config struct {
	// TLDsURL is the list of delegated TLDs; empty means DefaultTLDsURL.
	TLDsURL string
	// RootDBURL is the Root Zone Database page; empty means
	// DefaultRootDBURL.
	RootDBURL string
	// Offline serves the builtin catalog without touching the network.
	Offline bool
	// LiveHeld, when set, reports whether the stream already holds zone
	// metadata from a live IANA fetch; then a failed fetch keeps it
	// rather than replacing it with the builtin catalog.
	LiveHeld func(ctx context.Context) (bool, error)
}

// Validate reports a configuration that cannot work, naming the field.
func (c Config) Validate() error {
	for _, f := range []struct{ name, value string }{{"TLDsURL", c.TLDsURL}, {"RootDBURL", c.RootDBURL}} {
		if err := fetch.CheckURL(f.value); err != nil {
			return fmt.Errorf("iana %s: %w", f.name, err)
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.TLDsURL == "" {
		c.TLDsURL = DefaultTLDsURL
	}
	if c.RootDBURL == "" {
		c.RootDBURL = DefaultRootDBURL
	}
	return c
}

// Source publishes zone metadata.
type Source struct {
	cfg    Config
	client *fetch.Client
	log    *slog.Logger
	now    func() time.Time
	// live is set once a live fetch succeeded: from then on a failure
	// keeps the live metadata on the stream rather than the builtin's.
	live atomic.Bool
}

var _ ingest.Source = (*Source)(nil)

// New returns a Source. client may be nil only when cfg.Offline is set; a
// nil log discards, a nil now is time.Now.
func New(cfg Config, client *fetch.Client, log *slog.Logger, now func() time.Time) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if client == nil && !cfg.Offline {
		return nil, errors.New("iana: a fetch client is needed unless offline")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Source{cfg: cfg.withDefaults(), client: client, log: log.With("source", Name), now: now}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return Name }

// Fetch implements ingest.Source: the live catalog, or the builtin one as
// the package comment says.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	observed := s.now()
	if !s.cfg.Offline {
		list, err := s.fetchLive(ctx, observed)
		if err == nil {
			s.live.Store(true)
			return list, nil
		}
		if errors.Is(ctx.Err(), context.Canceled) || s.live.Load() {
			return nil, err
		}
		// A restarted ingester has no memory of earlier live fetches;
		// the stream has, and its IANA data beats the builtin catalog.
		if s.cfg.LiveHeld != nil {
			// The fetch may have used up ctx's deadline; asking the
			// stream gets its own.
			hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			held, herr := s.cfg.LiveHeld(hctx)
			cancel()
			if herr != nil {
				return nil, errors.Join(err, herr)
			}
			if held {
				return nil, fmt.Errorf("%w; the stream keeps its IANA zone data", err)
			}
		}
		s.log.Warn("IANA zone data unavailable; serving the builtin zone catalog (source builtin) until a live fetch succeeds", "err", err)
	}
	cat, err := Builtin()
	if err != nil {
		return nil, err
	}
	return &ingest.List{Zones: cat.Metas(observed)}, nil
}

func (s *Source) fetchLive(ctx context.Context, observed time.Time) (*ingest.List, error) {
	tlds, err := s.client.Get(ctx, s.cfg.TLDsURL, http.Header{"Accept": {"text/plain"}})
	if err != nil {
		return nil, fmt.Errorf("fetch iana tld list: %w", err)
	}
	db, err := s.client.Get(ctx, s.cfg.RootDBURL, http.Header{"Accept": {"text/html"}})
	if err != nil {
		return nil, fmt.Errorf("fetch iana root zone database: %w", err)
	}
	cat, st, err := Live(tlds.Body, db.Body)
	if err != nil {
		return nil, fmt.Errorf("parse iana zone data: %w", err)
	}
	if len(st.Untyped) > 0 {
		s.log.Warn("delegated TLDs without a type in the root zone database left out", "count", len(st.Untyped), "tlds", st.Untyped)
	}
	if len(st.Unlisted) > 0 {
		s.log.Info("TLDs the root zone database assigns but the TLD list lacks", "count", len(st.Unlisted), "tlds", st.Unlisted)
	}
	s.log.Info("IANA zone data", "delegated", st.Delegated, "zones", cat.Len(), "second_level", st.SecondLevel, "not_delegated_rows", st.NotDelegated)
	return &ingest.List{Zones: cat.Metas(observed)}, nil
}
