// Package access decides who may use the API and how often: client
// addresses and API keys, the key store that mirrors the JetStream bucket of
// subscriber keys, and a rate limiter.
//
// The limiter is GCRA (the generic cell rate algorithm, a token bucket kept
// as one timestamp per client): quota refills smoothly, one request every
// Window/Limit, up to Burst requests at once. Its state is a fixed-size,
// 8-way set-associative table allocated once: a client's key hashes (with a
// per-process random seed, so nobody can aim at another client's set) to one
// set of eight entries behind its own mutex, so there is no global lock and
// a request allocates nothing. Memory is bounded by Config.Clients whatever
// the number of addresses an attacker uses: a new client takes an entry
// whose quota has refilled completely (it is the same as no entry), or else
// the entry nearest to refilled, whose client then starts again with a full
// quota. So a flood of distinct addresses can at worst lift other clients'
// limits, never refuse a client for someone else's traffic, and
// zoneprice_ratelimit_evictions_total shows when the table is too small.
//
// Limits are per pod: the state is in this process's memory. Behind a load
// balancer spreading a client over N pods, the client gets up to N times
// the limit. Operators who want a total limit set each pod's to total/N, or
// balance by client address (sticky sessions). A limit shared between pods
// would need a network round trip on every request, more than the request
// itself costs here, so there is none.
//
// API keys are 160 random bits, shown once by the admin command; the
// bucket holds only their SHA-256 with a tier and a note
// (contracts.APIKey). Keys mirrors the bucket by watching it, so a key
// created or revoked reaches every pod in moments. A key whose tier a pod
// has no limit for is served at the free rate, per key, with a warning
// when it is loaded and zoneprice_api_keys{tier="unknown"}: a pod that
// lags behind a change of its tiers keeps serving subscribers rather than
// refusing them. Likewise a bucket the pod cannot read makes keys
// unavailable (answered 503), never wrong (401), and does not keep the pod
// unready: that includes a load of the bucket that stops short of its end,
// as one does on a record the NATS server cannot read, which is given up
// once no record has come for DefaultLoadTimeout and logged with how to
// repair the bucket. See Keys.
package access
