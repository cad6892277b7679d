package pages

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// chartSeries is how many registrars the chart draws: the cheapest to
// register now. More lines than colours a person tells apart say nothing;
// the table and the history's JSON have every registrar.
const chartSeries = 8

// The chart's geometry, in the SVG's own units; the stylesheet scales it
// to the page's width.
const (
	chartWidth  = 720
	chartHeight = 300
	chartLeft   = 72 // room for "120.00" at the phone's 20-unit axis text
	chartRight  = 12
	chartTop    = 12
	chartBottom = 28
)

// chart is a zone's price history as an inline SVG: per registrar, a step
// line of the registration price paid (solid) and of the renewal (dashed)
// over time. Colours come from the stylesheet, by class: the page's
// policy forbids style attributes.
type chart struct {
	Width, Height, Left, Right, Top, Bottom int
	Series                                  []series
	YTicks, XTicks                          []tick
	Currency                                string
	// Desc says in words what the chart shows, for screen readers.
	Desc string
}

type series struct {
	Class, Registrar string
	Register, Renew  string // path data; empty when never offered
	Now              string // the registration price now, for the legend
}

type tick struct {
	X, Y  int
	Label string
	// Anchor is the time axis' text-anchor: start, middle or end.
	Anchor string
}

// step is one period of a price: [from, to) at value, in Unix seconds and
// minor units.
type step struct {
	from, to int64
	value    int64
}

// openEnd is the end of a price's current period until the axis' end is
// known.
const openEnd int64 = -1

// newChart draws the history h; nil when it holds nothing to draw.
func newChart(h *historyJSON, currency string) *chart {
	regs, start, end := chartSteps(h)
	if len(regs) == 0 {
		return nil
	}
	regs = cheapestNow(regs)
	// The axis spans the history as it is, however short: a history that
	// began minutes ago (a new deployment, a new zone) is drawn as lines
	// across the whole width from when its prices were first seen, which
	// is what is known, rather than as stubs at the edge of a longer axis.
	end = max(end, start+1)
	for _, g := range regs {
		g.endAt(end)
	}
	// A span of days is told in dates, a shorter one in times.
	layout, descLayout := "2 Jan 2006", "2 January 2006"
	if end-start < 3*24*3600 {
		layout, descLayout = "2 Jan 15:04", "2 January 2006, 15:04 UTC"
	}
	c := &chart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Right: chartWidth - chartRight,
		Top: chartTop, Bottom: chartHeight - chartBottom, Currency: currency}
	p := newPlot(c, start, end, highest(regs))
	c.YTicks = p.valueTicks(currency)
	c.XTicks = p.timeTicks(layout)
	names := make([]string, len(regs))
	for i, g := range regs {
		names[i] = g.name
		c.Series = append(c.Series, series{Class: "s" + strconv.Itoa(i), Registrar: g.name,
			Register: p.path(g.register), Renew: p.path(g.renew), Now: g.nowText})
	}
	c.Desc = "Registration (solid) and renewal (dashed) prices in " + currency + " from " +
		time.Unix(start, 0).UTC().Format(descLayout) + " to " + time.Unix(end, 0).UTC().Format(descLayout) +
		" for " + strings.Join(names, ", ") + "."
	return c
}

// registrarSteps are one registrar's prices over time, oldest first.
type registrarSteps struct {
	name            string
	register, renew []step
	now             int64 // the registration price now, when hasNow
	hasNow          bool
	nowText         string
}

// chartSteps reads the registrars of h that have a price into steps, and
// the time they span: from the oldest period to as_of or the latest end.
func chartSteps(h *historyJSON) (regs []*registrarSteps, start, end int64) {
	end = h.AsOf.Unix()
	start = end
	for _, r := range h.Registrars {
		g := &registrarSteps{name: r.Registrar}
		// Periods come newest first; the chart reads them oldest first.
		for i := len(r.Periods) - 1; i >= 0; i-- {
			pd := r.Periods[i]
			from, to := pd.From.Unix(), openEnd // the axis' end, once known
			if pd.To != nil {
				to = pd.To.Unix()
				end = max(end, to)
			}
			start = min(start, from)
			if pd.Register != nil {
				g.register = append(g.register, step{from: from, to: to, value: minor(*pd.Register)})
				if pd.To == nil {
					g.now, g.hasNow, g.nowText = minor(*pd.Register), true, pd.Register.String()
				}
			}
			if pd.Renew != nil {
				g.renew = append(g.renew, step{from: from, to: to, value: minor(*pd.Renew)})
			}
		}
		if len(g.register) > 0 || len(g.renew) > 0 {
			regs = append(regs, g)
		}
	}
	return regs, start, end
}

// cheapestNow keeps the chartSeries registrars cheapest to register now,
// cheapest first; those not offering it now come last.
func cheapestNow(regs []*registrarSteps) []*registrarSteps {
	slices.SortFunc(regs, func(a, b *registrarSteps) int {
		if a.hasNow != b.hasNow {
			if a.hasNow {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.now, b.now), strings.Compare(a.name, b.name))
	})
	return regs[:min(len(regs), chartSeries)]
}

// endAt ends the current periods at end, the axis' end.
func (g *registrarSteps) endAt(end int64) {
	for _, steps := range [][]step{g.register, g.renew} {
		for i := range steps {
			if steps[i].to == openEnd {
				steps[i].to = end
			}
		}
	}
}

// highest is the highest price of any step.
func highest(regs []*registrarSteps) int64 {
	var top int64
	for _, g := range regs {
		for _, s := range append(g.register, g.renew...) {
			top = max(top, s.value)
		}
	}
	return top
}

// plot maps times and prices to the chart's units: time across from the
// plot's left, prices up from its bottom to a tick above the highest.
type plot struct {
	left, bottom, width, height int64
	start, end                  int64 // Unix seconds
	stepY, top                  int64 // minor units
}

// newPlot is the plot of c's area for the time from start to end and
// prices up to highest.
func newPlot(c *chart, start, end, highest int64) *plot {
	stepY := niceStep(max(highest, 1) / 4)
	return &plot{
		left: int64(c.Left), bottom: int64(c.Bottom),
		width: int64(c.Right - c.Left), height: int64(c.Bottom - c.Top),
		start: start, end: end,
		stepY: stepY, top: (highest/stepY + 1) * stepY,
	}
}

func (p *plot) x(t int64) int64 { return p.left + (t-p.start)*p.width/(p.end-p.start) }

func (p *plot) y(v int64) int64 { return p.bottom - v*p.height/p.top }

// valueTicks label the price axis every stepY, in currency.
func (p *plot) valueTicks(currency string) []tick {
	var ticks []tick
	exp, _ := contracts.CurrencyExponent(currency)
	for v := int64(0); v <= p.top; v += p.stepY {
		ticks = append(ticks, tick{X: int(p.left), Y: int(p.y(v)), Label: string(contracts.AppendAmount(nil, v, exp))})
	}
	return ticks
}

// timeTicks label the time axis at its start, middle and end.
func (p *plot) timeTicks(layout string) []tick {
	var ticks []tick
	for i := range 3 {
		t := p.start + (p.end-p.start)*int64(i)/2
		label := time.Unix(t, 0).UTC().Format(layout)
		if n := len(ticks); n > 0 && ticks[n-1].Label == label {
			continue // a span of minutes: one label says it
		}
		ticks = append(ticks, tick{X: int(p.x(t)), Y: int(p.bottom), Label: label, Anchor: [...]string{"start", "middle", "end"}[i]})
	}
	return ticks
}

// path is the SVG path data of a step line: a horizontal segment per
// step, joined by a vertical one where a step follows the last at once.
func (p *plot) path(steps []step) string {
	var b []byte
	lastX, lastTo := int64(-1), int64(-1)
	for _, s := range steps {
		x1, x2, yy := p.x(s.from), p.x(s.to), p.y(s.value)
		if x2 <= x1 {
			x2 = x1 + 1
		}
		if s.from == lastTo && x1 == lastX {
			b = append(b, 'V')
		} else {
			b = append(b, 'M')
			b = strconv.AppendInt(b, x1, 10)
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, yy, 10)
		b = append(b, 'H')
		b = strconv.AppendInt(b, x2, 10)
		lastX, lastTo = x2, s.to
	}
	return string(b)
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten that is at
// least v: axis ticks a person reads at a glance.
func niceStep(v int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}
