# zoneprice-admin: the API keys command, for a one-off container or a
# Kubernetes Job (docker run --rm zoneprice/admin keys list). Built by
# `make images` from a static binary in bin/images/admin; FROM scratch.
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-admin" \
      org.opencontainers.image.description="zoneprice admin command: create, list and revoke API keys" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY zoneprice-admin /zoneprice-admin
USER 65532:65532
ENTRYPOINT ["/zoneprice-admin"]
