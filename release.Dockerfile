# The release image of mcpship, built by GoReleaser (dockers_v2 in
# .goreleaser.yaml) from the release binary of each Linux platform, which
# GoReleaser puts at $TARGETPLATFORM/mcpship in the build context. Nothing
# is compiled or downloaded here: the base is empty and the binary static.
#
# It serves MCP over HTTP on port 8080 as user 65532, not root. Listening
# beyond loopback needs a bearer token: give it in $MCPSHIP_AUTH_TOKEN or
# mount a file and pass --auth-token-file. Arguments after the image name
# replace the CMD below, e.g. --manifest /srv/mcpship.json.
# docs/deploy.md has compose and Kubernetes examples.
FROM scratch
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/mcpship /usr/bin/mcpship
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/bin/mcpship", "serve", "--transport", "http"]
CMD ["--listen", "0.0.0.0:8080"]
