// Package kit is the adapter kit: a registrar source that reads one
// document, a JSON one, a CSV file or an HTML price table, or the pages of
// one, is declared rather than programmed. A Declaration says where the
// document is and how it is asked for (Declaration, Request), who it
// speaks for (Registrar) and, in a Table, where the rows are and which of
// their fields are the zone, the prices of each operation and their
// regular prices, the currency (fixed, per row, per document, per
// operation or from each price's symbol), what marks an operation as not
// offered and which rows are no zone at all. The kit fetches with the
// shared client (ingest/fetch), reads every amount into minor units with
// ingest/money, applies the rules every adapter used to repeat (a zero
// registration is no price, a zero transfer a free one, a zone listed
// twice is skipped, a row offering nothing is left out), compares the
// document with its format (ingest.CheckFormat) and tallies what it
// skipped and why (ingest.Tally).
//
// The path a document takes: Source.Fetch asks for it (kit.go), the
// Table finds its rows (table.go: JSON, scanned with ingest/rawjson;
// markup.go: CSV and HTML, turned into the same rows), each row becomes a price set (row.go), its
// amounts read by amount.go; value.go holds the JSON parts an adapter
// whose format needs code of its own uses too.
package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// A Declaration is one source: its name, the registrar it speaks for, the
// document it reads and how its rows are read. The zero value of each
// optional field is the common case.
type Declaration struct {
	// Name is the source's name (logs, metrics, every price set's
	// source); Registrar.ID is the registrar its prices are for.
	Name      string
	Registrar ingest.Registrar
	// Kind is what the document is (contracts.SourceSite for a page's
	// data, SourceAPI for a documented API).
	Kind contracts.SourceKind
	// URL is the document's default address; Config.URL replaces it.
	URL string
	// What names the document in errors: "porkbun price list".
	What string
	// Currency is the currency of a price nothing else labels ("" when
	// every row must say), and the one its description states.
	Currency string
	// Tax is what every price set declares of tax; "" leaves it out of
	// them (unknown, as an adapter written before tax was declared
	// published it).
	Tax contracts.Tax
	// Request is how the document is asked for.
	Request Request

	// Table reads the document's rows. A source whose format needs code
	// sets Parse instead, and may use a Table's parts in it.
	Table *Table
	// Parse, when set, reads a document in place of the Table (which it
	// may use, through d): saved pages, a format that needs code.
	Parse func(d *Declaration, body []byte, observed time.Time) (*ingest.List, error)
	// Fetch, when set, fetches and reads the document in place of one
	// request: a source reading several pages. It keeps the first page's
	// body in first, whose format is checked.
	Fetch func(ctx context.Context, s *Source, first *[]byte) (*ingest.List, error)
	// Pages says the source reads pages: a saved document is a JSON array
	// of their bodies, and its format is checked on the first.
	Pages bool
	// Shape is the document's format, as its adapter knows it (drift);
	// nil declares none.
	Shape *ingest.Shape
}

// Site declares, in one call, the common case: a source that reads a
// registrar's own document (contracts.SourceSite) and is named for it. id
// is the source's name and the registrar's id, name and website are the
// registrar's, url the document's address, what names it in errors and
// currency is Declaration.Currency; t reads it. Tax is unknown, as no
// site is known to say; a declaration that knows more, or reads
// otherwise, sets the returned Declaration's fields.
func Site(id, name, website, url, what, currency string, t *Table) *Declaration {
	return &Declaration{
		Name: id, Registrar: ingest.Registrar{ID: id, Name: name, Website: website}, Kind: contracts.SourceSite,
		URL: url, What: what, Currency: currency, Tax: contracts.TaxUnknown, Table: t,
	}
}

// Request is how a document is asked for. A GET without a body is
// conditional (fetch.Client.Get); anything else is not, since its answer
// depends on more than its URL.
type Request struct {
	Method string // default GET
	Header http.Header
	Body   []byte
}

// Config configures a declared source.
type Config struct {
	// URL is the document; empty means the declaration's URL.
	URL string
}

// Validate reports a configuration that cannot work, naming the field
// (contracts.ValidationError).
func (c Config) Validate() error {
	if err := fetch.CheckURL(c.URL); err != nil {
		return contracts.Invalid("URL", "%v", err)
	}
	return nil
}

// Source fetches and reads a declared document. It implements
// ingest.Source and ingest.Describer.
type Source struct {
	d      *Declaration
	url    string
	client *fetch.Client
	now    func() time.Time
}

var (
	_ ingest.Source    = (*Source)(nil)
	_ ingest.Describer = (*Source)(nil)
)

// New returns a Source of d that fetches with client and stamps what it
// observes with now() (time.Now when nil).
func New(d *Declaration, cfg Config, client *fetch.Client, now func() time.Time) (*Source, error) {
	now, err := fetch.Ready(d.Name, cfg, client, now)
	if err != nil {
		return nil, err
	}
	u := cfg.URL
	if u == "" {
		u = d.URL
	}
	return &Source{d: d, url: u, client: client, now: now}, nil
}

// Name implements ingest.Source.
func (s *Source) Name() string { return s.d.Name }

// URL is the document the source reads.
func (s *Source) URL() string { return s.url }

// Client is the fetch client the source was given, for a declaration's
// own Fetch.
func (s *Source) Client() *fetch.Client { return s.client }

// Declaration is what the source was declared as.
func (s *Source) Declaration() *Declaration { return s.d }

// Now is the source's clock.
func (s *Source) Now() time.Time { return s.now() }

// Describe implements ingest.Describer.
func (s *Source) Describe() ingest.Description {
	r := s.d.Registrar
	return ingest.OneRegistrar(s.d.Kind, s.url, s.d.Currency, s.d.Tax.Known(), r.ID, r.Name, r.Website)
}

// Fetch implements ingest.Source: one request (or the declaration's own
// Fetch), read as Parse reads a saved one.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	if s.d.Fetch != nil {
		var first []byte
		list, err := s.d.Fetch(ctx, s, &first)
		return s.d.checked(first, list, err)
	}
	resp, err := s.Get(ctx, s.url, s.d.Request)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", s.d.What, err)
	}
	return s.d.Read(resp.Body, s.now())
}

// Get fetches one document as r says, conditionally when it is a plain
// GET.
func (s *Source) Get(ctx context.Context, u string, r Request) (*fetch.Response, error) {
	header := r.Header
	if header == nil {
		header = http.Header{"Accept": {s.d.Table.accept()}}
	}
	if (r.Method == "" || r.Method == http.MethodGet) && r.Body == nil {
		return s.client.Get(ctx, u, header)
	}
	return s.client.Do(ctx, fetch.Request{Method: r.Method, URL: u, Header: header, Body: r.Body})
}

// Read reads one saved document (what --file imports) into a list
// observed at observed, with its drift from the declared Shape.
func (d *Declaration) Read(body []byte, observed time.Time) (*ingest.List, error) {
	var list *ingest.List
	var err error
	switch {
	case d.Parse != nil:
		list, err = d.Parse(d, body, observed)
	case d.Table != nil && d.Table.Format != JSON && !d.Pages:
		return d.readText(body, observed)
	case d.Table != nil:
		var t ingest.Tally
		if _, err = d.AddRows(&t, body, observed); err == nil {
			list, err = t.List(d.What)
		}
	default:
		err = errors.New("the declaration reads nothing: it has no Table and no Parse")
	}
	if d.Pages {
		body = ingest.FirstOf(body)
	}
	return d.checked(body, list, err)
}

// checked adds the drift of body, the document's first page, to what
// reading it gave.
func (d *Declaration) checked(body []byte, list *ingest.List, err error) (*ingest.List, error) {
	if d.Table != nil && d.Table.Format != JSON {
		return d.Table.tableDrift(body, list, err)
	}
	if d.Shape == nil {
		return list, err
	}
	return ingest.CheckFormat(d.Shape, body, list, err)
}
