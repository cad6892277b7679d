# zoneprice-ingest: the ingesters. Built by `make images` from a static
# binary in bin/images/ingest; FROM scratch plus the build host's CA
# certificates, which the registrar, IANA and ECB fetches over HTTPS need.
#
# Health: GET /healthz on port 9091 (--metrics-listen) answers 200 while the
# process runs; there is no shell for a Docker HEALTHCHECK.
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-ingest" \
      org.opencontainers.image.description="zoneprice ingesters: fetch registrar price lists and publish what changed on NATS JetStream" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY zoneprice-ingest /zoneprice-ingest
USER 65532:65532
# /metrics and /healthz (--metrics-listen).
EXPOSE 9091
ENTRYPOINT ["/zoneprice-ingest"]
