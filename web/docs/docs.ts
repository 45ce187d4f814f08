/** Swagger UI (swagger-ui-dist, bundled by the build: no CDN) over the gateway's OpenAPI document. */
import SwaggerUI from "swagger-ui-dist/swagger-ui-es-bundle.js";
import "swagger-ui-dist/swagger-ui.css";

SwaggerUI({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
