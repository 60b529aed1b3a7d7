package dev.minilake.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The few Unity Catalog REST calls the catalog plugin makes (`/api/2.1/unity-catalog`). It uses the JDK's
 * HttpClient with its default version, so on http:// every first request carries `Upgrade: h2c` exactly as
 * the official connector's client does: the server must keep those requests' bodies.
 */
final class UcClient {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A non-2xx answer, with Databricks' `error_code` when the body had one. */
  static final class UcException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;
    final String errorCode;
    /** The server's own sentence (`message`), without the request in front of it. */
    final String detail;

    UcException(int status, String errorCode, String message) {
      this(status, errorCode, message, message);
    }

    UcException(int status, String errorCode, String message, String detail) {
      super(message);
      this.status = status;
      this.errorCode = errorCode;
      this.detail = detail;
    }

    /** Unity Catalog refused the change (a read-only catalog such as samples, or a missing privilege). */
    boolean denied() {
      return status == 403;
    }
  }

  private final String root;
  private final String base;
  /** The bearer of each call, asked per call (a session's caller's token can be refreshed while it lives). */
  private final java.util.function.Supplier<String> token;
  private final HttpClient http;

  UcClient(String uri, String token) {
    this(uri, token, null);
  }

  /** `caCert`: a PEM certificate to trust for an https:// server (MiniLake's own, with MINILAKE_TLS=1). */
  UcClient(String uri, String token, String caCert) {
    this(uri, () -> token, caCert);
  }

  UcClient(String uri, java.util.function.Supplier<String> token, String caCert) {
    String u = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    this.root = u;
    this.base = u + "/api/2.1/unity-catalog";
    this.token = token;
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
    if (caCert != null && !caCert.isEmpty() && u.startsWith("https:")) b.sslContext(trusting(caCert));
    this.http = b.build();
  }

  private static javax.net.ssl.SSLContext trusting(String pemFile) {
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(pemFile))) {
      java.security.KeyStore ks = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
      ks.load(null, null);
      int n = 0;
      for (java.security.cert.Certificate c :
          java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in))
        ks.setCertificateEntry("ca" + n++, c);
      javax.net.ssl.TrustManagerFactory tmf =
          javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (java.io.IOException | java.security.GeneralSecurityException e) {
      throw new IllegalArgumentException("Cannot use the CA certificate " + pemFile + ": " + e.getMessage(), e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String query(Map<String, String> q) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : q.entrySet()) {
      if (e.getValue() == null) continue;
      sb.append(sb.length() == 0 ? '?' : '&').append(enc(e.getKey())).append('=').append(enc(e.getValue()));
    }
    return sb.toString();
  }

  JsonNode call(String method, String path, JsonNode body) {
    return send(method, base, path, body);
  }

  /** A call to one of the server's own routes outside Unity Catalog (`/_minilake/pipelines/...`). */
  JsonNode callRoot(String method, String path, JsonNode body) {
    return send(method, root, path, body);
  }

  JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private JsonNode send(String method, String base, String path, JsonNode body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .header("Accept", "application/json")
            .header("User-Agent", "minilake-uc-spark/1");
    String bearer = token.get();
    if (bearer != null && !bearer.isEmpty()) b.header("Authorization", "Bearer " + bearer);
    if (body != null) {
      b.header("Content-Type", "application/json");
      b.method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> r;
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UcException(0, null, "Unity Catalog at " + base + " is unreachable: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UcException(0, null, "Interrupted calling Unity Catalog");
    }
    JsonNode j;
    try {
      j = r.body() == null || r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
    } catch (IOException e) {
      j = JSON.createObjectNode();
    }
    if (r.statusCode() / 100 != 2) {
      String code = j.path("error_code").asText(null);
      String msg = j.path("message").asText(r.body());
      throw new UcException(r.statusCode(), code, method + " " + path + ": " + r.statusCode() + " " + msg, msg);
    }
    return j;
  }

  /** Every item of a paged list (`next_page_token` followed to the end). */
  List<JsonNode> list(String path, String key, Map<String, String> q) {
    List<JsonNode> out = new ArrayList<>();
    String token = null;
    do {
      Map<String, String> qq = new java.util.LinkedHashMap<>(q);
      if (token != null) qq.put("page_token", token);
      JsonNode j = call("GET", path + query(qq), null);
      for (JsonNode x : j.path(key)) out.add(x);
      token = j.hasNonNull("next_page_token") ? j.get("next_page_token").asText() : null;
      if (token != null && token.isEmpty()) token = null;
    } while (token != null);
    return out;
  }

  ObjectNode object() {
    return JSON.createObjectNode();
  }
}
