# nats-server, built by `make images` from the nats-server Go module at the
# version go.mod requires (no registry needed), with zoneprice's server
# configuration in /etc/nats: zoneprice-node.conf (a cluster node), which
# includes accounts.conf (users and permissions), and tls.conf to include
# for TLS. The default command runs zoneprice-node.conf, which needs the
# users' public keys in ZONEPRICE_NKEY_* and, in a cluster, --name and
# --routes; see deploy/nats/zoneprice-node.conf.
#
# Health: GET /healthz on the monitoring port 8222 (?js-enabled-only=true
# for liveness); there is no shell for a Docker HEALTHCHECK.
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-nats-server" \
      org.opencontainers.image.description="NATS server with JetStream, built from its Go module, with zoneprice's accounts and cluster configuration" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY nats-server /nats-server
COPY conf/ /etc/nats/
# The JetStream store, owned by the user the server runs as; a named volume
# mounted here starts with that owner.
COPY --chown=65532:65532 data/ /data/
USER 65532:65532
# Clients, cluster routes, monitoring.
EXPOSE 4222 6222 8222
ENTRYPOINT ["/nats-server"]
CMD ["--config", "/etc/nats/zoneprice-node.conf"]
