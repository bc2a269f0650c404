"""Server-rendered hosted checkout pages (HTML, templates, static assets); presentation only."""
