# zoneprice-lb: the small load balancer in front of the query pods in the
# compose file and the failure suite (production uses the platform's load
# balancer). Built by `make images` from a static binary in bin/images/lb;
# FROM scratch.
FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="zoneprice-lb" \
      org.opencontainers.image.description="zoneprice load balancer for local clusters: round-robin over ready query pods" \
      org.opencontainers.image.source="https://github.com/zoneprice/zoneprice" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY zoneprice-lb /zoneprice-lb
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/zoneprice-lb"]
