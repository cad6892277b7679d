// Package sources is the table of ingest sources the commands know, by
// name: the one place a new registrar adapter is registered. It lives
// apart from the commands so that zoneprice and zoneprice-ingest, which both
// run ingesters, register the same sources. Each source reads its settings
// from the environment here; credentials come from the variable or from the
// file its _FILE form names (app.Secret), never from flags.
package sources

import (
	"context"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ecb"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
	"github.com/zoneprice/zoneprice/ingest/namecom"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
	"github.com/zoneprice/zoneprice/ingest/sample"
	"github.com/zoneprice/zoneprice/ingest/sheet"
)

// adapterRegistrars are the registrar ids the registrar adapters publish;
// a price sheet may not use them, or it would withdraw their zones.
func adapterRegistrars() []string {
	return []string{porkbun.Name, ovhcloud.Name, namecheap.Name, namecom.Name}
}

// Registry returns every source by name.
func Registry() map[string]app.SourceSpec {
	return map[string]app.SourceSpec{
		porkbun.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				return porkbun.New(porkbun.Config{URL: d.Getenv("ZONEPRICE_PORKBUN_URL")}, d.Client, d.Now)
			},
			Parse: porkbun.Parse, Auto: true,
		},
		ovhcloud.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				return ovhcloud.New(ovhcloud.Config{
					URL:        d.Getenv("ZONEPRICE_OVHCLOUD_URL"),
					Subsidiary: d.Getenv("ZONEPRICE_OVHCLOUD_SUBSIDIARY"),
				}, d.Client, d.Now)
			},
			Parse: ovhcloud.Parse, Auto: true,
		},
		namecheap.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				key, err := app.Secret(d.Getenv, namecheap.EnvAPIKey)
				if err != nil {
					return nil, err
				}
				return namecheap.New(namecheap.Config{
					URL:      d.Getenv(namecheap.EnvURL),
					APIUser:  d.Getenv(namecheap.EnvAPIUser),
					APIKey:   key,
					UserName: d.Getenv(namecheap.EnvUserName),
					ClientIP: d.Getenv(namecheap.EnvClientIP),
				}, d.Client, d.Now)
			},
			Parse: namecheap.Parse, Auto: true, Switch: []string{namecheap.EnvAPIKey},
		},
		namecom.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				token, err := app.Secret(d.Getenv, namecom.EnvToken)
				if err != nil {
					return nil, err
				}
				return namecom.New(namecom.Config{
					URL: d.Getenv(namecom.EnvURL), Username: d.Getenv(namecom.EnvUsername), Token: token,
				}, d.Client, d.Now)
			},
			Parse: namecom.Parse, Auto: true, Switch: []string{namecom.EnvToken},
		},
		sheet.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				return sheet.New(sheet.Config{
					URL:    d.Getenv("ZONEPRICE_SHEET_URL"),
					File:   d.Getenv("ZONEPRICE_SHEET_FILE"),
					Format: d.Getenv("ZONEPRICE_SHEET_FORMAT"),
					Name:   d.Getenv("ZONEPRICE_SHEET_NAME"),
					Log:    d.Log,
					// The adapters' registrars: a sheet must not speak for them.
					Reserved: adapterRegistrars(),
				}, d.Client, d.Now)
			},
			Parse: sheet.ParseReserved(adapterRegistrars()), Auto: true, Switch: []string{"ZONEPRICE_SHEET_URL", "ZONEPRICE_SHEET_FILE"},
		},
		iana.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				offline, err := app.Bool(d.Getenv, "ZONEPRICE_IANA_OFFLINE")
				if err != nil {
					return nil, err
				}
				return iana.New(iana.Config{
					TLDsURL:   d.Getenv("ZONEPRICE_IANA_TLDS_URL"),
					RootDBURL: d.Getenv("ZONEPRICE_IANA_ROOTDB_URL"),
					Offline:   offline,
					LiveHeld: func(ctx context.Context) (bool, error) {
						return ingest.HeldBy(ctx, d.JS, contracts.ZoneSubjectPrefix+"*", iana.Name)
					},
				}, d.Client, d.Log, d.Now)
			},
			Auto: true, Zones: true,
		},
		ecb.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				return ecb.New(ecb.Config{URL: d.Getenv("ZONEPRICE_ECB_URL")}, d.Client, d.Now)
			},
			Parse: ecb.Parse, Auto: true,
		},
		sample.SourceName: {
			New:      func(d app.Deps) (ingest.Source, error) { return sample.New(d.Now), nil },
			Auto:     true,
			Fallback: true,
		},
	}
}
