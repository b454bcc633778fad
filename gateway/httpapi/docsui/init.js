// Starts Swagger UI on the gateway's OpenAPI document. It is a file rather
// than an inline script so that the page's Content-Security-Policy needs
// no 'unsafe-inline'. URLs are relative to /docs, so the page works behind
// a path prefix and never names a host.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    // BaseLayout: no top bar, whose field would load any URL's document.
    layout: "BaseLayout",
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    // No badge from the public validator: the page loads nothing from
    // another host.
    validatorUrl: null,
    // The key is kept for this tab only, never in localStorage.
    persistAuthorization: false,
  });
});
