# One image, two entrypoints: `node dist/controller/main.js` (the default) and
# `node dist/webhook/main.js` (config/manager sets the command of each Deployment).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The `node` devDependency provides Node 22 on machines without it; the base image has it already.
RUN npm ci --no-audit --no-fund --omit=optional
COPY . .
RUN npx tsc -p tsconfig.json

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev && npm cache clean --force
COPY --from=build /src/dist/shared dist/shared
COPY --from=build /src/dist/webhook dist/webhook
COPY --from=build /src/dist/controller dist/controller
COPY --from=build /src/dist/certs dist/certs
# A numeric non-root user, so that runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT []
# The heap flags of config/manager/controller.yaml, for the image run on its own.
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=384", "dist/controller/main.js"]
