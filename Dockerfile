# One image, two entrypoints: the controller's bundle (the default) and the webhook's
# (config/manager sets the command of each Deployment). The bundles hold every dependency, so the
# runtime stage has no node_modules: only the two files and their source maps.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the `node` devDependency's would download the Node 22 the base image has
# already; esbuild runs from its platform package (an optional dependency) without its own.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# The bundler reads the schema validator tsc compiles (dist/shared), so tsc runs first.
RUN node node_modules/typescript/bin/tsc -p tsconfig.json && node hack/bundle.mjs

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/dist/bundle/controller.mjs /src/dist/bundle/controller.mjs.map dist/bundle/
COPY --from=build /src/dist/bundle/controller dist/bundle/controller/
COPY --from=build /src/dist/bundle/webhook.mjs /src/dist/bundle/webhook.mjs.map dist/bundle/
# A numeric non-root user, so that runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT []
# The command of config/manager/controller.yaml, for the image run on its own.
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=384", "--enable-source-maps", "dist/bundle/controller.mjs"]
