FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY overlap_site ./overlap_site
COPY celery_app ./celery_app
COPY proximity ./proximity
COPY frontend_assets ./frontend_assets
COPY manage.py ./
RUN pip install --no-cache-dir -e '.[server,mcp]' && DJANGO_SECRET_KEY=build-only-collectstatic-key-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \
    python manage.py collectstatic --noinput
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
EXPOSE 8000
