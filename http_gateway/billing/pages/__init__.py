"""Server-rendered customer portal pages (HTML, templates, static assets); presentation only."""
