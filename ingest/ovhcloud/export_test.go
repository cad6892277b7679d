package ovhcloud

// CatalogURL exposes the URL a configuration reads, for tests.
func (c Config) CatalogURL() string { return c.url() }
