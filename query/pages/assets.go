package pages

import (
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/labstack/echo/v5"

	"github.com/zoneprice/zoneprice/cache"
)

//go:embed static
var staticFS embed.FS

// immutable is the Cache-Control of an asset: its address names its
// content, so a browser keeps it for a year and never asks again.
var immutable = []string{"public, max-age=31536000, immutable"}

// asset is one embedded file, served at an address that carries a hash
// of its content ("/assets/site.3f2a9c1e.css").
type asset struct {
	url         string
	body        *cache.Body
	contentType []string
}

// assets are the embedded files by their hashed name, and their addresses
// by their own name.
type assets struct {
	byHashed map[string]*asset
	byName   map[string]*asset
}

var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

func loadAssets() (*assets, error) {
	a := &assets{byHashed: map[string]*asset{}, byName: map[string]*asset{}}
	err := fs.WalkDir(staticFS, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := staticFS.ReadFile(name)
		if err != nil {
			return err
		}
		base := path.Base(name)
		ext := path.Ext(base)
		ct, ok := contentTypes[ext]
		if !ok {
			return fmt.Errorf("asset %s: no content type for %q", name, ext)
		}
		sum := xxhash.Sum64(data)
		hashed := strings.TrimSuffix(base, ext) + "." + hex.EncodeToString([]byte{byte(sum >> 56), byte(sum >> 48), byte(sum >> 40), byte(sum >> 32)}) + ext
		x := &asset{url: "/assets/" + hashed, body: cache.NewBody(data, time.Time{}), contentType: []string{ct}}
		a.byHashed[hashed], a.byName[base] = x, x
		return nil
	})
	return a, err
}

// url is the address of an asset by its own name, for templates; a name
// that is not embedded fails the template, so a page never links to
// nothing.
func (a *assets) url(name string) (string, error) {
	x, ok := a.byName[name]
	if !ok {
		return "", fmt.Errorf("no asset %q", name)
	}
	return x.url, nil
}

// Asset serves /assets/{name}: an embedded file under its hashed name,
// kept by browsers for a year. An old hash is a 404: the page that asked
// for it is older than this build, and is reloaded.
func (p *Pages) Asset() echo.HandlerFunc {
	return func(c *echo.Context) error {
		x, ok := p.assets.byHashed[c.Param("name")]
		if !ok {
			return p.fail(c, &Error{Status: 404, Detail: "There is no such file."})
		}
		c.Response().Header()["Content-Security-Policy"] = pagePolicy
		return p.b.WriteBody(c, x.body, x.contentType, immutable)
	}
}
