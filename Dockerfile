# syntax=docker/dockerfile:1
# Switchyard's image. The build stage runs scripts/build.sh, the same build CI runs; the runtime stage
# holds only the compiled server, its production packages and package.json, run by Node 22 as `node`.

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles from source: the native toolchain stays in this stage.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts/build.sh scripts/
COPY src src
COPY devnets devnets
COPY dashboard dashboard
RUN scripts/build.sh --production

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the server; only /data is the server's to write.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist/src dist/src
COPY --from=build /app/dist/dashboard dist/dashboard
# The OpenAPI document reads the version from it.
COPY --from=build /app/dist/package.json dist/
COPY scripts/healthcheck.mjs scripts/
# The server's alone (0700): it holds the master key and the database. A new named volume copies this mode.
RUN mkdir -m 0700 /data && chown node:node /data
USER node
# The embedded SQLite database and master.key when DATABASE_URL is not set.
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "scripts/healthcheck.mjs"]
CMD ["node", "dist/src/main.js"]
