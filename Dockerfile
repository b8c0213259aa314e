# One image for the api and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim AS build
# The image's npm 10 does not read package.json's allowScripts: skip onnxruntime-node's CUDA fetch (docs/configuration.md#installing).
ENV ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY util util
COPY rules rules
COPY platform platform
COPY store store
COPY catalogue catalogue
COPY messages messages
COPY protocol protocol
COPY router router
COPY workflows workflows
COPY activities activities
COPY api api
COPY worker worker
COPY supervisor supervisor
COPY scripts scripts
COPY sdk sdk
COPY temporal-callers temporal-callers
COPY demo demo
COPY cli cli
COPY bench bench
COPY test test
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
# Data files the compiled router reads beside its code.
COPY --from=build /app/router/head/out-of-scope.txt ./dist/router/head/out-of-scope.txt
COPY --from=build /app/worker/workflow-thread-preload.cjs ./dist/worker/workflow-thread-preload.cjs
USER node
EXPOSE 3000
CMD ["node", "--require", "./dist/worker/workflow-thread-preload.cjs", "dist/api/main.js"]
