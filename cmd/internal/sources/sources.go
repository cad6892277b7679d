// Package sources is the table of ingest sources the commands know, by
// name: the one place a new registrar adapter is registered. It lives
// apart from the commands so that zoneprice and zoneprice-ingest, which both
// run ingesters, register the same sources.
package sources

import (
	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// Registry returns every source by name.
func Registry() map[string]app.SourceSpec {
	return map[string]app.SourceSpec{
		sample.SourceName: {
			New:      func(d app.Deps) (ingest.Source, error) { return sample.New(d.Now), nil },
			Auto:     true,
			Fallback: true,
		},
	}
}
