# fairgammon server image: the browser client is built in a Node stage, the server runs on
# Python 3.11 with uvicorn. Redis is not in this image (see docker-compose.yml).
FROM node:22-bookworm-slim AS web
WORKDIR /src/web-client
COPY web-client/package.json web-client/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web-client/ ./
COPY protocol/fairdice/vectors/ /src/protocol/fairdice/vectors/
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md LICENSE ./
COPY engine/ engine/
COPY protocol/ protocol/
COPY work/ work/
COPY brain/ brain/
COPY bots/ bots/
COPY server/ server/
COPY analysis/ analysis/
RUN pip install --no-cache-dir .
COPY --from=web /src/web-client/dist/ web-client/dist/
EXPOSE 8000
# REDIS_URL must be set (docker-compose.yml does); allowed origins come from
# FAIRGAMMON_ALLOWED_ORIGINS / FAIRGAMMON_PUBLIC_URL.
CMD ["fairgammon", "serve", "--host", "0.0.0.0", "--port", "8000"]
