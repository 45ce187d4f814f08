/** Swagger UI (swagger-ui-dist, bundled by the build: no CDN) over the gateway's OpenAPI document. */
import SwaggerUI from "swagger-ui-dist/swagger-ui-es-bundle.js";
import "swagger-ui-dist/swagger-ui.css";

// validatorUrl null: no badge fetched from validator.swagger.io (the page loads nothing from elsewhere).
SwaggerUI({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });
