package contracts

import (
	"strings"
	"time"
)

// The subject scheme. A subject token cannot hold a dot, so a zone is one
// token: its canonical ASCII form without the leading dot, each inner dot
// written as an underscore (".co.uk" is "co_uk", ".uk" is "uk",
// ".xn--p1ai" is "xn--p1ai"). Host labels never contain an underscore, so
// the encoding is reversible and ".co.uk" cannot collide with ".uk" or with
// a registrar's "co" zone. Because a zone is exactly one token, a wildcard
// still selects one registrar or one zone:
//
//	prices.v1.porkbun.*   every zone porkbun prices
//	prices.v1.*.co_uk     every registrar's .co.uk
//	zones.v1.co_uk        .co.uk's metadata
//	rates.v1.EUR          the EUR-based reference rates
//	changes.v1.porkbun.*  every change of porkbun's prices (history)
//	changes.v1.*.co_uk    every change of any registrar's .co.uk
//	status.v1.porkbun     what porkbun's ingester last knew of it
const (
	PriceSubjectPrefix  = "prices.v1."
	ZoneSubjectPrefix   = "zones.v1."
	RatesSubjectPrefix  = "rates.v1."
	ChangeSubjectPrefix = "changes.v1."
)

// RepublishSubject is the core NATS subject (not a stream) on which the
// admin command asks every running ingester to publish its whole list at
// its next round, changed or not: the repair after the state stream lost
// messages. Each ingester answers the request with the sources it runs.
const RepublishSubject = "zoneprice.control.v1.republish"

// StateStream is the stream holding the current state: the last price set or
// withdrawal per registrar and zone, the last metadata per zone and the last
// rates per base currency.
const StateStream = "ZONEPRICE_STATE"

// StateSubjects returns the subjects StateStream captures. A later history
// stream can source from StateStream without overlapping them.
func StateSubjects() []string {
	return []string{PriceSubjectPrefix + "*.*", ZoneSubjectPrefix + "*", RatesSubjectPrefix + "*", StatusSubjectPrefix + "*"}
}

// HistoryStream is the stream of price changes: every change of every
// registrar's offer for every zone, in the order they were observed, kept
// for years (see package stream for how long).
const HistoryStream = "ZONEPRICE_HISTORY"

// HistorySubjects returns the subjects HistoryStream captures.
func HistorySubjects() []string { return []string{ChangeSubjectPrefix + "*.*"} }

// DuplicateWindow is how long the server remembers a Nats-Msg-Id: a retried
// publish of the same content within it is dropped.
const DuplicateWindow = 10 * time.Minute

// MaxEventSize bounds one event document, in bytes: the largest real one
// (a day's reference rates) is under 2 KiB. Decode refuses a larger
// document, and the stream refuses to store one.
const MaxEventSize = 16 << 10

// ZoneToken encodes a canonical zone (".co.uk") as one subject token ("co_uk").
func ZoneToken(zone string) string {
	return strings.ReplaceAll(strings.TrimPrefix(zone, "."), ".", "_")
}

// ZoneFromToken decodes a subject token back to a canonical zone.
func ZoneFromToken(token string) string {
	return "." + strings.ReplaceAll(token, "_", ".")
}

// PriceSubject is where a registrar's price set or withdrawal for a zone lives.
func PriceSubject(registrar, zone string) string {
	return PriceSubjectPrefix + registrar + "." + ZoneToken(zone)
}

// ParsePriceSubject reads a price subject back into its registrar and
// canonical zone. It reports false for any other subject; it does not
// validate the registrar or the zone, which the document on the subject is
// checked against (OnSubject).
func ParsePriceSubject(subject string) (registrar, zone string, ok bool) {
	return parseRegistrarZone(PriceSubjectPrefix, subject)
}

// ChangeSubject is where the changes of a registrar's offer for a zone
// are recorded.
func ChangeSubject(registrar, zone string) string {
	return ChangeSubjectPrefix + registrar + "." + ZoneToken(zone)
}

// ParseChangeSubject is ParsePriceSubject for a change subject.
func ParseChangeSubject(subject string) (registrar, zone string, ok bool) {
	return parseRegistrarZone(ChangeSubjectPrefix, subject)
}

// RegistrarChangeFilter selects every change subject of one registrar.
func RegistrarChangeFilter(registrar string) string {
	return ChangeSubjectPrefix + registrar + ".*"
}

func parseRegistrarZone(prefix, subject string) (registrar, zone string, ok bool) {
	rest, ok := strings.CutPrefix(subject, prefix)
	if !ok {
		return "", "", false
	}
	registrar, token, ok := strings.Cut(rest, ".")
	if !ok || registrar == "" || token == "" || strings.Contains(token, ".") {
		return "", "", false
	}
	return registrar, ZoneFromToken(token), true
}

// RegistrarPriceFilter selects every price subject of one registrar.
func RegistrarPriceFilter(registrar string) string {
	return PriceSubjectPrefix + registrar + ".*"
}

// ZoneSubject is where a zone's metadata lives.
func ZoneSubject(zone string) string {
	return ZoneSubjectPrefix + ZoneToken(zone)
}

// RatesSubject is where the reference rates for a base currency live.
func RatesSubject(base string) string {
	return RatesSubjectPrefix + base
}

// OnSubject reports whether subject is the one ev must be published on,
// without building that subject: a replay checks every message.
func OnSubject(ev Event, subject string) bool {
	switch e := ev.(type) {
	case *PriceSet:
		return onPriceSubject(subject, e.Registrar, e.Zone)
	case *Withdrawal:
		return onPriceSubject(subject, e.Registrar, e.Zone)
	case *PriceChange:
		return onRegistrarZone(ChangeSubjectPrefix, subject, e.Registrar, e.Zone)
	}
	return ev.Subject() == subject
}

func onPriceSubject(subject, registrar, zone string) bool {
	return onRegistrarZone(PriceSubjectPrefix, subject, registrar, zone)
}

func onRegistrarZone(prefix, subject, registrar, zone string) bool {
	rest, ok := strings.CutPrefix(subject, prefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, registrar)
	if !ok || len(rest) == 0 || rest[0] != '.' {
		return false
	}
	token, zone := rest[1:], strings.TrimPrefix(zone, ".")
	if len(token) != len(zone) {
		return false
	}
	for i := 0; i < len(token); i++ {
		want := zone[i]
		if want == '.' {
			want = '_'
		}
		if token[i] != want {
			return false
		}
	}
	return true
}
