// Package sources is the table of ingest sources the commands know, by
// name: the one place a new registrar adapter is registered, and the rules
// that pick which of them run and how often (Select). It lives apart from
// the commands so that zoneprice and zoneprice-ingest, which both run
// ingesters, register and pick the same sources; package app runs what it
// picks. Each source reads its settings
// from the environment here; credentials come from the variable or from the
// file its _FILE form names (app.Secret), never from flags.
package sources

import (
	"context"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/cloudflare"
	"github.com/zoneprice/zoneprice/ingest/cn22"
	"github.com/zoneprice/zoneprice/ingest/connectreseller"
	"github.com/zoneprice/zoneprice/ingest/domaincostclub"
	"github.com/zoneprice/zoneprice/ingest/domeneshop"
	"github.com/zoneprice/zoneprice/ingest/dynadot"
	"github.com/zoneprice/zoneprice/ingest/ecb"
	"github.com/zoneprice/zoneprice/ingest/epik"
	"github.com/zoneprice/zoneprice/ingest/forpsi"
	"github.com/zoneprice/zoneprice/ingest/gandi"
	"github.com/zoneprice/zoneprice/ingest/gname"
	"github.com/zoneprice/zoneprice/ingest/hostpoint"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/internetbs"
	"github.com/zoneprice/zoneprice/ingest/inwx"
	"github.com/zoneprice/zoneprice/ingest/iwantmyname"
	"github.com/zoneprice/zoneprice/ingest/joker"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/lcn"
	"github.com/zoneprice/zoneprice/ingest/loopia"
	"github.com/zoneprice/zoneprice/ingest/lws"
	"github.com/zoneprice/zoneprice/ingest/metaname"
	"github.com/zoneprice/zoneprice/ingest/namecheap"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
	"github.com/zoneprice/zoneprice/ingest/namecom"
	"github.com/zoneprice/zoneprice/ingest/nicnames"
	"github.com/zoneprice/zoneprice/ingest/onecom"
	"github.com/zoneprice/zoneprice/ingest/onlydomains"
	"github.com/zoneprice/zoneprice/ingest/openprovider"
	"github.com/zoneprice/zoneprice/ingest/ovhcloud"
	"github.com/zoneprice/zoneprice/ingest/porkbun"
	"github.com/zoneprice/zoneprice/ingest/rebel"
	"github.com/zoneprice/zoneprice/ingest/register4less"
	"github.com/zoneprice/zoneprice/ingest/sample"
	"github.com/zoneprice/zoneprice/ingest/sav"
	"github.com/zoneprice/zoneprice/ingest/sheet"
	"github.com/zoneprice/zoneprice/ingest/tierra"
	"github.com/zoneprice/zoneprice/ingest/truehost"
	"github.com/zoneprice/zoneprice/ingest/vpsor"
)

// adapterRegistrars are the registrar ids the registrar adapters publish;
// a price sheet may not use them, or it would withdraw their zones.
func adapterRegistrars() []string {
	return []string{porkbun.Name, ovhcloud.Name, namecheap.Name, namecom.Name,
		openprovider.Name, inwx.Name, dynadot.Name, nicnames.Name, tierra.Name, gname.Name, cloudflare.Name,
		joker.Name, epik.Name, iwantmyname.Name,
		rebel.Name, internetbs.Name, register4less.Name, onlydomains.Name,
		sav.Name, connectreseller.Name, domaincostclub.Name, hostpoint.Name,
		metaname.Name, cn22.Name, lws.Name, loopia.Name, domeneshop.Name,
		gandi.Name, onecom.Name, vpsor.Name,
		forpsi.Name, truehost.Name, lcn.Name,
	}
}

// siteInterval is how often the price lists registrars' own sites load are
// fetched: they are someone else's servers, not a published API, and
// prices change rarely.
const siteInterval = 24 * time.Hour

// urlSource is the registration of a keyless source that reads one
// document from a URL, which ZONEPRICE_<NAME>_URL may replace.
func urlSource[S ingest.Source](env string, build func(url string, d app.Deps) (S, error), parse ingest.ParseFunc) app.SourceSpec {
	names := app.FlagNames{"URL": env}
	return app.SourceSpec{
		New: func(d app.Deps) (ingest.Source, error) {
			src, err := build(d.Getenv(env), d)
			if err != nil {
				return nil, names.Explain(err)
			}
			return src, nil
		},
		Parse: parse, Auto: true, Interval: siteInterval,
	}
}

// declared is the registration of a source the adapter kit reads from a
// URL, which ZONEPRICE_<NAME>_URL may replace; a site's document is
// fetched as siteInterval says, an API's at the runner's interval.
func declared(env string, decl *kit.Declaration) app.SourceSpec {
	spec := urlSource(env, func(url string, d app.Deps) (*kit.Source, error) {
		return kit.New(decl, kit.Config{URL: url}, d.Client, d.Now)
	}, decl.Read)
	if decl.Kind == contracts.SourceAPI {
		spec.Interval = 0
	}
	return spec
}

// Registry returns every source by name.
func Registry() map[string]app.SourceSpec {
	// The environment variables the credentialed sources and the price
	// sheet are configured with, by the Config field each sets: a
	// Validate error naming a field is explained with its variable.
	namecheapEnv := app.FlagNames{
		"URL": "ZONEPRICE_NAMECHEAP_URL", "APIUser": "ZONEPRICE_NAMECHEAP_API_USER", "APIKey": "ZONEPRICE_NAMECHEAP_API_KEY",
		"UserName": "ZONEPRICE_NAMECHEAP_USERNAME", "ClientIP": "ZONEPRICE_NAMECHEAP_CLIENT_IP",
	}
	namecomEnv := app.FlagNames{"URL": "ZONEPRICE_NAMECOM_URL", "Username": "ZONEPRICE_NAMECOM_USERNAME", "Token": "ZONEPRICE_NAMECOM_TOKEN"}
	sheetEnv := app.FlagNames{"URL": "ZONEPRICE_SHEET_URL", "File": "ZONEPRICE_SHEET_FILE", "Format": "ZONEPRICE_SHEET_FORMAT", "Name": "ZONEPRICE_SHEET_NAME"}
	return map[string]app.SourceSpec{
		openprovider.Name: urlSource("ZONEPRICE_OPENPROVIDER_URL", func(url string, d app.Deps) (*openprovider.Source, error) {
			return openprovider.New(openprovider.Config{URL: url}, d.Client, d.Now)
		}, openprovider.Parse),
		inwx.Name:        declared("ZONEPRICE_INWX_URL", inwx.Declaration()),
		dynadot.Name:     declared("ZONEPRICE_DYNADOT_URL", dynadot.Declaration()),
		nicnames.Name:    declared("ZONEPRICE_NICNAMES_URL", nicnames.Declaration()),
		tierra.Name:      declared("ZONEPRICE_TIERRA_URL", tierra.Declaration()),
		joker.Name:       declared("ZONEPRICE_JOKER_URL", joker.Declaration()),
		epik.Name:        declared("ZONEPRICE_EPIK_URL", epik.Declaration()),
		iwantmyname.Name: declared("ZONEPRICE_IWANTMYNAME_URL", iwantmyname.Declaration()),
		gname.Name: urlSource("ZONEPRICE_GNAME_URL", func(url string, d app.Deps) (*gname.Source, error) {
			return gname.New(gname.Config{URL: url}, d.Client, d.Now)
		}, gname.Parse),
		cloudflare.ListSource: declared("ZONEPRICE_CFDOMAINPRICING_URL", cloudflare.Declaration()),
		namecheaplist.Name: func() app.SourceSpec {
			// Namecheap's keyless list speaks for the registrar the
			// credentialed adapter does: it runs only where that one is
			// not configured, so the two never run together.
			spec := declared("ZONEPRICE_NAMECHEAP_LIST_URL", namecheaplist.Declaration())
			spec.Unless = []string{namecheapEnv["APIKey"]}
			return spec
		}(),
		porkbun.Name:         declared("ZONEPRICE_PORKBUN_URL", porkbun.Declaration()),
		rebel.Name:           declared("ZONEPRICE_REBEL_URL", rebel.Declaration()),
		internetbs.Name:      declared("ZONEPRICE_INTERNETBS_URL", internetbs.Declaration()),
		sav.Name:             declared("ZONEPRICE_SAV_URL", sav.Declaration()),
		connectreseller.Name: declared("ZONEPRICE_CONNECTRESELLER_URL", connectreseller.Declaration()),
		domaincostclub.Name:  declared("ZONEPRICE_DOMAINCOSTCLUB_URL", domaincostclub.Declaration()),
		hostpoint.Name:       declared("ZONEPRICE_HOSTPOINT_URL", hostpoint.Declaration()),
		loopia.Name:          declared("ZONEPRICE_LOOPIA_URL", loopia.Declaration()),
		domeneshop.Name:      declared("ZONEPRICE_DOMENESHOP_URL", domeneshop.Declaration()),
		gandi.Name:           declared("ZONEPRICE_GANDI_URL", gandi.Declaration()),
		onecom.Name:          declared("ZONEPRICE_ONECOM_URL", onecom.Declaration()),
		vpsor.Name: func() app.SourceSpec {
			// Vpsor's API reference asks that its product list, which
			// rarely changes, be cached: read daily, as a site's.
			spec := declared("ZONEPRICE_VPSOR_URL", vpsor.Declaration())
			spec.Interval = siteInterval
			return spec
		}(),
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
				key, err := app.Secret(d.Getenv, namecheapEnv["APIKey"])
				if err != nil {
					return nil, err
				}
				src, err := namecheap.New(namecheap.Config{
					URL:      d.Getenv(namecheapEnv["URL"]),
					APIUser:  d.Getenv(namecheapEnv["APIUser"]),
					APIKey:   key,
					UserName: d.Getenv(namecheapEnv["UserName"]),
					ClientIP: d.Getenv(namecheapEnv["ClientIP"]),
				}, d.Client, d.Now)
				if err != nil {
					return nil, namecheapEnv.Explain(err)
				}
				return src, nil
			},
			Parse: namecheap.Parse, Auto: true, Switch: []string{namecheapEnv["APIKey"]},
		},
		namecom.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				token, err := app.Secret(d.Getenv, namecomEnv["Token"])
				if err != nil {
					return nil, err
				}
				src, err := namecom.New(namecom.Config{
					URL: d.Getenv(namecomEnv["URL"]), Username: d.Getenv(namecomEnv["Username"]), Token: token,
				}, d.Client, d.Now)
				if err != nil {
					return nil, namecomEnv.Explain(err)
				}
				return src, nil
			},
			Parse: namecom.Parse, Auto: true, Switch: []string{namecomEnv["Token"]},
		},
		sheet.Name: {
			New: func(d app.Deps) (ingest.Source, error) {
				src, err := sheet.New(sheet.Config{
					URL:    d.Getenv(sheetEnv["URL"]),
					File:   d.Getenv(sheetEnv["File"]),
					Format: d.Getenv(sheetEnv["Format"]),
					Name:   d.Getenv(sheetEnv["Name"]),
					Log:    d.Log,
					// The adapters' registrars: a sheet must not speak for them.
					Reserved: adapterRegistrars(),
				}, d.Client, d.Now)
				if err != nil {
					return nil, sheetEnv.Explain(err)
				}
				return src, nil
			},
			Parse: sheet.ParseReserved(adapterRegistrars()), Auto: true, Switch: []string{sheetEnv["URL"], sheetEnv["File"]},
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
						return ingest.HeldBy(ctx, d.Streams, contracts.ZoneSubjectPrefix+"*", iana.Name)
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
		register4less.Name: declared("ZONEPRICE_REGISTER4LESS_URL", register4less.Declaration()),
		onlydomains.Name:   declared("ZONEPRICE_ONLYDOMAINS_URL", onlydomains.Declaration()),
		metaname.Name:      declared("ZONEPRICE_METANAME_URL", metaname.Declaration()),
		cn22.Name:          declared("ZONEPRICE_22CN_URL", cn22.Declaration()),
		lws.Name:           declared("ZONEPRICE_LWS_URL", lws.Declaration()),
		forpsi.Name:        declared("ZONEPRICE_FORPSI_URL", forpsi.Declaration()),
		truehost.Name:      declared("ZONEPRICE_TRUEHOST_URL", truehost.Declaration()),
		lcn.Name:           declared("ZONEPRICE_LCN_URL", lcn.Declaration()),
	}
}
