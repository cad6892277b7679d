package contracts

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"slices"
	"sync"
)

// CategoryKind says how zones come to be in a category.
type CategoryKind string

// The category kinds.
const (
	// CategoryKindType categories are the IANA types: a zone is in the one
	// its (parent's) type names, so they list no zones.
	CategoryKindType CategoryKind = "type"
	// CategoryKindOverlay categories are derived by rule from the zone's
	// name and type (second-level, IDN, legacy or new gTLD). They list no
	// zones, except cctld-as-generic, which no rule can derive.
	CategoryKindOverlay CategoryKind = "overlay"
	// CategoryKindThematic categories are what people browse by
	// (technology, finance, cities); each lists its zones.
	CategoryKindThematic CategoryKind = "thematic"
)

// Category is one category the service knows: its id (the value of
// ZoneMeta.Categories), display name, kind, a sentence for people, and the
// zones it lists, canonical, where its kind lists them.
type Category struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Kind        CategoryKind `json:"kind"`
	Description string       `json:"description"`
	Zones       []string     `json:"zones,omitempty"`
}

// categoriesJSON is the reviewed category data. Changing it changes what
// every zone source publishes; its tests check every id, kind and zone.
//
//go:embed categories.json
var categoriesJSON []byte

// loadCategories parses the embedded file once. The file is part of the
// build and its test rejects any file that does not parse, so a failure
// here is a broken build, not a runtime condition.
var loadCategories = sync.OnceValue(func() categoryIndex {
	cats, err := parseCategories(categoriesJSON)
	if err != nil {
		panic("contracts: embedded categories.json: " + err.Error())
	}
	idx := categoryIndex{list: cats, byID: make(map[string]int, len(cats))}
	for i, c := range cats {
		idx.byID[c.ID] = i
	}
	return idx
})

type categoryIndex struct {
	list []Category
	byID map[string]int
}

// parseCategories decodes the category file strictly: unknown fields and
// trailing data are errors, so that a typo in a field name does not
// silently drop a zone list.
func parseCategories(data []byte) ([]Category, error) {
	var doc struct {
		Categories []Category `json:"categories"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the category document")
	}
	if len(doc.Categories) == 0 {
		return nil, errors.New("no categories")
	}
	return doc.Categories, nil
}

// Categories returns every category the service knows, in the file's
// order: the five types, the overlays, then the thematic categories. The
// result is the caller's to modify.
func Categories() []Category {
	idx := loadCategories()
	out := make([]Category, len(idx.list))
	for i, c := range idx.list {
		out[i] = c.clone()
	}
	return out
}

// CategoryByID returns the category with id, if the service knows it.
func CategoryByID(id string) (Category, bool) {
	idx := loadCategories()
	i, ok := idx.byID[id]
	if !ok {
		return Category{}, false
	}
	return idx.list[i].clone(), true
}

func (c Category) clone() Category {
	c.Zones = slices.Clone(c.Zones)
	return c
}
