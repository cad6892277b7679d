# zoneprice-notify: the webhook sender. Built by `make images` from a static
# binary in bin/images/notify; FROM scratch plus the build host's CA
# certificates, which deliveries to subscribers' https endpoints need.
# Nothing is written to disk but the price-drop digests, and those only
# without an SMTP relay, into the outbox directory, a volume
# (/var/lib/zoneprice/outbox, owned by the image's user), so the root file
# system may be read-only.
#
# Health: GET /healthz on port 9091 (--metrics-listen) answers 200 while the
# process runs; there is no shell for a Docker HEALTHCHECK.
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-notify" \
      org.opencontainers.image.description="zoneprice webhook sender: delivers price changes from NATS JetStream to subscribers' endpoints, signed and retried" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY zoneprice-notify /zoneprice-notify
COPY --chown=65532:65532 outbox /var/lib/zoneprice/outbox
USER 65532:65532
# /metrics and /healthz (--metrics-listen).
EXPOSE 9091
ENTRYPOINT ["/zoneprice-notify"]
