# zoneprice-query: one query pod. Built by `make images` from a static
# binary (CGO_ENABLED=0, -trimpath) in bin/images/query; FROM scratch, so
# the image holds the binary, the build host's CA certificates (for the
# SMTP relay's TLS) and nothing else: no shell, no package manager. Nothing is written to disk but the subscription mails, and
# those only without an SMTP relay, into the outbox directory, a volume
# (/var/lib/zoneprice/outbox, owned by the image's user), so the root file
# system may be read-only.
#
# Health: there is no shell or curl for a Docker HEALTHCHECK; the
# orchestrator probes over HTTP on port 8080:
#   GET /healthz  200 while the process runs (liveness)
#   GET /readyz   200 once caught up with the stream; 503 before, and while
#                 draining on SIGTERM (readiness)
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-query" \
      org.opencontainers.image.description="zoneprice query pod: replays the price stream from NATS JetStream and serves the JSON API" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY zoneprice-query /zoneprice-query
COPY --chown=65532:65532 outbox /var/lib/zoneprice/outbox
USER 65532:65532
# The API, /healthz, /readyz and /metrics (--listen).
EXPOSE 8080
ENTRYPOINT ["/zoneprice-query"]
