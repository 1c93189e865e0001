// Package provider talks to model APIs: OpenAI Chat Completions (and any
// compatible server) through go-openai, and Anthropic Messages through a
// small client of our own. Each converts rein's canonical messages to its
// wire format and back, streams text as it arrives, and accumulates tool
// calls across chunks.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/message"
)

// Tool is a tool offered to the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments
}

// Request is one model call.
type Request struct {
	Model       string
	Messages    []message.Message // canonical; system messages included
	Tools       []Tool
	Temperature *float64
	MaxTokens   int
}

// Usage counts the tokens of one model call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is what the model answered.
type Response struct {
	Text       string
	ToolCalls  []message.Call
	Usage      Usage
	StopReason string
}

// Provider streams one model call; onText receives text as it arrives.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req Request, onText func(string)) (*Response, error)
}

// Error is a failed model call, with what the loop needs to decide whether
// to retry.
type Error struct {
	Provider   string
	Status     int // HTTP status, 0 when the request never got one
	Message    string
	RetryAfter time.Duration // from the Retry-After header, if any
	// NoTools is set when the model does not support tool calling.
	NoTools bool
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Provider, e.Message)
	if e.Status != 0 {
		msg = fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	}
	if h := e.hint(); h != "" {
		msg += "; " + h
	}
	return msg
}

// hint says, for the errors a person meets setting a model up, what is
// wrong and what to try.
func (e *Error) hint() string {
	m := strings.ToLower(e.Message)
	switch {
	case strings.Contains(m, "connection refused"):
		return "nothing answers at that address: is the server running (for Ollama: ollama serve), and is --base-url right?"
	case strings.Contains(m, "no such host"):
		return "that host is not known: check the host in --base-url"
	case strings.Contains(m, "<html") || strings.Contains(m, "<!doctype"):
		return "the server answered a web page, not the API: check --base-url (an OpenAI-compatible API's usually ends in /v1)"
	case e.Status >= 500:
		return "the server failed; rein retried it, and it may work later"
	}
	return ""
}

// Retryable reports whether the call may succeed when repeated (rate limits
// and server errors).
func (e *Error) Retryable() bool { return e.Status == http.StatusTooManyRequests || e.Status >= 500 }

// retryAfter reads a Retry-After header (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// noToolsHint recognises providers' ways of saying a model cannot call tools.
func noToolsHint(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "does not support tools") || strings.Contains(m, "tool use is not supported") ||
		strings.Contains(m, "tools are not supported") || strings.Contains(m, "does not support function") ||
		strings.Contains(m, "tool_choice") && strings.Contains(m, "not supported")
}

// Spec is a parsed model string: provider:model.
type Spec struct {
	Provider string // openai, anthropic, ollama, openai-compatible, azure
	Model    string // an Azure deployment's name, for azure
	BaseURL  string
	KeyEnv   string // the variable the API key comes from
	// Guessed: the model string named no provider, and it was guessed
	// from the model's name (claude-* is Anthropic's).
	Guessed bool
	// APIVersion is Azure OpenAI's api-version (from the base URL's
	// ?api-version=, else AzureAPIVersion).
	APIVersion string
}

// Defaults for model strings.
const (
	OllamaBaseURL = "http://localhost:11434/v1"
	// AzureAPIVersion is the Azure OpenAI API version rein speaks unless
	// the base URL names one: a GA version with tool calls and streamed
	// usage.
	AzureAPIVersion = "2024-10-21"
	// KeyEnvAny is the variable a key for any provider may come from when
	// nothing names another: an OpenAI-compatible server needs none.
	KeyEnvAny = "REIN_API_KEY"
)

// ParseModel reads "openai:gpt-4.1", "anthropic:claude-sonnet-4-5",
// "ollama:qwen3" or "openai-compatible:NAME" (which needs baseURL). A bare
// model name is taken as OpenAI's.
func ParseModel(s, baseURL, keyEnv string) (Spec, error) {
	name, model, ok := strings.Cut(s, ":")
	if !ok {
		name, model = guessProvider(s, baseURL), s
	}
	spec := Spec{Provider: name, Model: model, BaseURL: baseURL, KeyEnv: keyEnv, Guessed: !ok}
	if baseURL != "" {
		if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return spec, fmt.Errorf("--base-url %q is not an address rein can call: write it with its scheme, e.g. http://%s", baseURL, strings.TrimPrefix(baseURL, "//"))
		}
	}
	if model == "" {
		return spec, fmt.Errorf("model string %q has no model name (want provider:model, e.g. openai:gpt-4.1)", s)
	}
	switch name {
	case "openai":
		if spec.KeyEnv == "" {
			spec.KeyEnv = "OPENAI_API_KEY"
		}
	case "anthropic":
		if spec.KeyEnv == "" {
			spec.KeyEnv = "ANTHROPIC_API_KEY"
		}
	case "ollama":
		if spec.BaseURL == "" {
			spec.BaseURL = OllamaBaseURL
		}
	case "openai-compatible":
		if spec.BaseURL == "" {
			return spec, fmt.Errorf("openai-compatible models need --base-url (e.g. http://localhost:8000/v1)")
		}
	case "azure":
		if spec.BaseURL == "" {
			return spec, fmt.Errorf("azure:%s needs --base-url, your resource's endpoint (e.g. https://NAME.openai.azure.com); the model is the deployment's name", model)
		}
		u, _ := url.Parse(spec.BaseURL)
		spec.APIVersion = u.Query().Get("api-version")
		if spec.APIVersion == "" {
			spec.APIVersion = AzureAPIVersion
		}
		u.RawQuery = ""
		spec.BaseURL = strings.TrimSuffix(u.String(), "/")
		if spec.KeyEnv == "" {
			spec.KeyEnv = "AZURE_OPENAI_API_KEY"
		}
	default:
		return spec, fmt.Errorf("unknown provider %q in %q; the provider is one of openai, anthropic, azure, ollama or openai-compatible (e.g. openai:gpt-4o)", name, s)
	}
	return spec, nil
}

// guessProvider is the provider a bare model name most likely belongs to:
// Anthropic's claude-*, else an OpenAI-compatible server when a base URL
// is given, else OpenAI.
func guessProvider(model, baseURL string) string {
	switch {
	case strings.HasPrefix(model, "claude"):
		return "anthropic"
	case baseURL != "":
		return "openai-compatible"
	}
	return "openai"
}

// Options configure a provider client.
type Options struct {
	HTTPClient *http.Client
	// Getenv reads the API key (default os.Getenv).
	Getenv func(string) string
}

// New makes the provider a spec names. A missing key says which variable
// to set.
func New(spec Spec, opts Options) (Provider, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	key := ""
	if spec.KeyEnv != "" {
		key = opts.Getenv(spec.KeyEnv)
		if key == "" && spec.KeyEnv != KeyEnvAny {
			key = opts.Getenv(KeyEnvAny)
		}
		if key == "" {
			return nil, fmt.Errorf("no API key for %s: set %s or %s (or name another variable with --api-key-env or the recipe's provider.api_key_env)", spec.Provider, spec.KeyEnv, KeyEnvAny)
		}
	} else {
		// A local server needs no key; one that does takes REIN_API_KEY.
		key = opts.Getenv(KeyEnvAny)
	}
	switch spec.Provider {
	case "anthropic":
		return newAnthropic(spec, key, opts.HTTPClient), nil
	case "azure":
		return newAzure(spec, key, opts.HTTPClient), nil
	default:
		return newOpenAI(spec, key, opts.HTTPClient), nil
	}
}
