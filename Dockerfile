# grundy — multi-stage build: dependencies cached by cargo-chef, small non-root runtime.
# Build: docker build --build-arg GRUNDY_GIT_COMMIT="$(git rev-parse HEAD)" -t grundy .
# Run: docker run -p 8080:8080 -v grundy-data:/var/lib/grundy/data grundy
# Jobs need API keys on 0.0.0.0 (else job writes are refused; README "API keys"):
#   docker run --rm grundy keys new --name alice --scope jobs      # key, then its key-file line
#   docker run -p 8080:8080 -v grundy-data:/var/lib/grundy/data -v "$PWD/api-keys:/run/secrets/grundy-api-keys:ro" \
#     -e GRUNDY_API_KEYS_FILE=/run/secrets/grundy-api-keys grundy

FROM rust:1.95-slim-bookworm AS chef
RUN cargo install cargo-chef --locked --version 0.1.71
WORKDIR /app

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
# Dependencies only: this layer is reused until Cargo.toml / Cargo.lock change.
RUN cargo chef cook --release --recipe-path recipe.json
# The git commit job documents cite as their engine's (build.rs; the context has no .git):
#   docker build --build-arg GRUNDY_GIT_COMMIT="$(git rev-parse HEAD)" -t grundy .
# Declared after the dependencies' layer, so that a new commit rebuilds only the crate.
ARG GRUNDY_GIT_COMMIT=unknown
ENV GRUNDY_GIT_COMMIT=${GRUNDY_GIT_COMMIT}
COPY . .
RUN cargo build --release --locked --bin grundy

FROM debian:bookworm-slim AS runtime
RUN groupadd --system --gid 10001 grundy \
    && useradd --system --uid 10001 --gid grundy --home-dir /var/lib/grundy --create-home grundy \
    && mkdir -p /var/lib/grundy/data \
    && chown -R grundy:grundy /var/lib/grundy
COPY --from=builder /app/target/release/grundy /usr/local/bin/grundy
WORKDIR /var/lib/grundy
ENV GRUNDY_ADDR=0.0.0.0:8080 \
    GRUNDY_DATABASE_URL=sqlite:///var/lib/grundy/data/grundy.db \
    GRUNDY_LOG_FORMAT=json
VOLUME ["/var/lib/grundy/data"]
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["grundy", "healthcheck"]
ENTRYPOINT ["grundy"]
CMD ["serve"]
