package sources

// AdapterRegistrars exposes adapterRegistrars to the test that holds the
// sheet's documentation to it.
var AdapterRegistrars = adapterRegistrars
