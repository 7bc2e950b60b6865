# The server in a container, built from the same wheel `pip` installs.
#   docker build -t dungeon-of-doom .
#   docker run -p 40004:40004 -p 8004:8004 -v dod-data:/var/lib/dod dungeon-of-doom
# Settings come from DOD_* variables or a TOML file (see docs/operating.md).
FROM python:3.12-slim AS build
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels \
    && useradd --system --home-dir /var/lib/dod --create-home dod
USER dod
WORKDIR /var/lib/dod
# Inside a container the server must listen on every interface to be reached at all.
ENV DOD_HOST=0.0.0.0 \
    DOD_HTTP_HOST=0.0.0.0 \
    DOD_LOG_FORMAT=json
EXPOSE 40004 8004
HEALTHCHECK --interval=30s --timeout=3s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8004/healthz', timeout=2)"
STOPSIGNAL SIGTERM
CMD ["dod-server"]
