# apicert in a container: certify, fake, plan, rules (and the k6 scripts under /app/load).
#
#   docker build -t apicert .
#   docker run --rm --network host -v "$PWD/reports:/work/reports" apicert certify --profile /work/staging.yaml
#   docker run --rm --network host apicert fake --port 8080 --webhook-receiver 127.0.0.1:8787
#
# Production dependencies only; apicert runs its TypeScript with Node's own type stripping (Node 24).
# Without Docker Hub: --build-arg NODE_IMAGE="$(bash scripts/node-base-image.sh)" --network host;
# without any registry, scripts/build-image.ts builds the same layout FROM scratch (docker import).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" compiles the library exports, which the CLI does not need.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY scenarios ./scenarios
COPY reports/templates ./reports/templates
COPY load ./load
# Reports and the fake's profile are written below the working folder: mount one over it to keep them.
RUN mkdir -p /work && chown node:node /work
WORKDIR /work
USER node
ENTRYPOINT ["node", "/app/bin/apicert.js"]
CMD ["--help"]
