package ingest

// CrashBeforeState makes every round of r stop, with err, between
// recording its changes and publishing its prices, as a crash there would.
func CrashBeforeState(r *Runner, err error) { r.beforeState = func() error { return err } }
