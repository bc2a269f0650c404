"""The hosted-pages kit: one Jinja set-up, brand theming, security headers and static assets for every
server-rendered page the gateway serves (checkout, portal, dashboard)."""
