FROM python:3.11-slim-bookworm
# util-linux: unshare, for the sandbox of the merge checks' test runs (proximity/sources/sandbox.py)
RUN apt-get update && apt-get install -y --no-install-recommends git util-linux \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY overlap_site ./overlap_site
COPY celery_app ./celery_app
COPY proximity ./proximity
COPY frontend_assets ./frontend_assets
COPY manage.py ./
RUN pip install --no-cache-dir -e '.[server,mcp,testruns]' && DJANGO_SECRET_KEY=build-only-collectstatic-key-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \
    python manage.py collectstatic --noinput
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Web, workers and beat run as an unprivileged user (the repositories mounted for the workers
# must be readable by uid 10001); test runs add a user namespace of their own on top.
RUN useradd --system --uid 10001 --user-group --create-home radar
USER radar
EXPOSE 8000
