# zerokit container images (BuildKit, the default builder since Docker 23).
#
#   docker build -t zerokit .                         # trainer and workers
#   docker build --target play -t zerokit-play .      # play and serve only
#
# Target "zerokit" (the default, the last stage): the libtorch build of
# zerokit on debian:bookworm-slim with Debian's libtorch 1.13 and OpenBLAS.
# Both roles of scale-out training run it, "zerokit train -store URL" (the
# trainer) and "zerokit worker -store URL" (self-play workers), because both
# run the network in batches through libtorch: the trainer trains it, the
# workers evaluate their games' leaves with it. The configurations are in
# /opt/zerokit/configs. About 1 GB: Debian's libtorch pulls in OpenCV, FFmpeg
# and the rest of its dependencies.
#
# Target "play": the pure-Go play-only binary (CGO_ENABLED=0, -tags nonet;
# about 13 MB, no libtorch, no cgo) on distroless/static, for "zerokit-play
# play | serve | export | eval | net-play ...": everything but training.
#
# Both images run as a non-root user.

# --- libtorch build -----------------------------------------------------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Debian's libtorch-dev and OpenBLAS (apt) and the patched gotch with its C++
# layer compiled once into build/ (scripts/setup.sh): the slow step, cached
# until go.mod, go.sum or scripts/ change. The final build below compiles
# gotch's Go packages itself (with -trimpath), hence SKIP_PREBUILD=1. The
# sources that use gotch are not copied yet, so GOTCH_FULL=1 keeps all of its
# operators instead of those zerokit's code reaches (docs/install.md).
COPY go.mod go.sum ./
COPY scripts/ scripts/
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOTCH_FULL=1 SKIP_PREBUILD=1 ./scripts/setup.sh \
    && rm -rf /var/lib/apt/lists/*
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags='-s -w' -tags gcs,azure,s3 -o /out/zerokit ./cmd/zerokit

# --- play-only build (pure Go; needs neither libtorch nor setup.sh) ----------
FROM golang:1.26-bookworm AS build-play
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -tags nonet -o /out/zerokit-play ./cmd/zerokit

# --- target play --------------------------------------------------------------
FROM gcr.io/distroless/static-debian12:nonroot AS play
COPY --from=build-play /out/zerokit-play /usr/local/bin/zerokit-play
COPY configs/ /opt/zerokit/configs/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/zerokit-play"]
CMD ["help"]

# --- target zerokit (default) -------------------------------------------------
FROM debian:bookworm-slim AS zerokit
# The runtime libraries of the libtorch build: the binary needs libc10 and
# libtorch_cpu (libtorch1.13, which brings its own dependencies), libstdc++
# and libgcc (already in the image); libopenblas0-pthread replaces the
# reference BLAS through Debian's alternatives (batch-1 convolutions ~4x
# faster); ca-certificates for object stores over HTTPS.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libtorch1.13 libopenblas0-pthread ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 zerokit \
    && useradd --system --uid 10001 --gid zerokit --home-dir /var/lib/zerokit \
        --shell /usr/sbin/nologin zerokit \
    && install -d -o zerokit -g zerokit /var/lib/zerokit /var/lib/zerokit/work
COPY --from=build /out/zerokit /usr/local/bin/zerokit
COPY configs/ /opt/zerokit/configs/
# Numeric, so that Kubernetes can check runAsNonRoot.
USER 10001:10001
WORKDIR /var/lib/zerokit
# Must be writable: libtorch's Go binding creates $HOME/.cache/gotch at start
# and exits if it cannot (the Kubernetes manifests, with a read-only root file
# system, set HOME=/tmp on a volume).
ENV HOME=/var/lib/zerokit
ENTRYPOINT ["zerokit"]
CMD ["help"]
