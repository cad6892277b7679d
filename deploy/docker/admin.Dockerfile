# zoneprice-admin: the API keys command, for a one-off container or a
# Kubernetes Job (docker run --rm zoneprice/admin keys list). Built by
# `make images` from a static binary in bin/images/admin; FROM scratch
# plus the build host's CA certificates, for the SMTP relay's TLS.
# announce writes its mails, without an SMTP relay, into the outbox
# directory /var/lib/zoneprice/outbox (a volume, owned by the image's user).
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-admin" \
      org.opencontainers.image.description="zoneprice admin command: create, list and revoke API keys" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY zoneprice-admin /zoneprice-admin
COPY --chown=65532:65532 outbox /var/lib/zoneprice/outbox
USER 65532:65532
ENTRYPOINT ["/zoneprice-admin"]
