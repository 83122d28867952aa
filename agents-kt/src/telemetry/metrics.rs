//! The GenAI client metrics and the decision counter, recorded from the run's one report path.

use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};

use crate::{ChatResponse, InterceptorDecision, ModelInfo};

/// The conventions' bucket advice for `gen_ai.client.token.usage`.
const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// The conventions' bucket advice for `gen_ai.client.operation.duration`, in seconds.
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// The meter of the global provider, named for this crate.
pub(crate) fn global_meter() -> Meter {
    opentelemetry::global::meter_with_scope(
        opentelemetry::InstrumentationScope::builder("agents-kt")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build(),
    )
}

/// One agent's instruments, and the attributes every model call of it shares.
pub(crate) struct GenAiMetrics {
    token_usage: Histogram<u64>,
    duration: Histogram<f64>,
    decisions: Counter<u64>,
    /// `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `server.*`.
    model: Vec<KeyValue>,
}

impl GenAiMetrics {
    pub(crate) fn new(meter: &Meter, model: Option<&ModelInfo>) -> Self {
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new(
                "gen_ai.provider.name",
                model.map_or_else(|| "unknown".to_string(), |model| model.provider.clone()),
            ),
        ];
        if let Some(model) = model {
            if let Some(name) = &model.model {
                attributes.push(KeyValue::new("gen_ai.request.model", name.clone()));
            }
            if let Some(address) = &model.server_address {
                attributes.push(KeyValue::new("server.address", address.clone()));
            }
            if let Some(port) = model.server_port {
                attributes.push(KeyValue::new("server.port", i64::from(port)));
            }
        }
        GenAiMetrics {
            token_usage: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Number of input and output tokens used.")
                .with_boundaries(TOKEN_BUCKETS.to_vec())
                .build(),
            duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("GenAI operation duration.")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            decisions: meter
                .u64_counter("agents_kt.decisions")
                .with_unit("{decision}")
                .with_description(
                    "Interceptor decisions other than Proceed, and gate denials, by point.",
                )
                .build(),
            model: attributes,
        }
    }

    /// One model call: how long it took, and its tokens when it answered. `error` is the
    /// failure's class.
    pub(crate) fn model_call(
        &self,
        elapsed: Duration,
        answer: Result<&ChatResponse, &'static str>,
    ) {
        let mut attributes = self.model.clone();
        match answer {
            Ok(response) => {
                if let Some(model) = &response.model {
                    attributes.push(KeyValue::new("gen_ai.response.model", model.clone()));
                }
                if let Some(usage) = response.usage {
                    for (kind, tokens) in [
                        ("input", usage.prompt_tokens),
                        ("output", usage.completion_tokens),
                    ] {
                        let mut attributes = attributes.clone();
                        attributes.push(KeyValue::new("gen_ai.token.type", kind));
                        self.token_usage.record(tokens, &attributes);
                    }
                }
            }
            Err(class) => attributes.push(KeyValue::new("error.type", class)),
        }
        self.duration.record(elapsed.as_secs_f64(), &attributes);
    }

    /// One decision reported to observers.
    pub(crate) fn decision(&self, decision: &InterceptorDecision) {
        self.decisions.add(
            1,
            &[
                KeyValue::new("agents_kt.decision.point", decision.point.row().attribute),
                KeyValue::new("agents_kt.decision", decision.decision.as_str()),
                KeyValue::new("gen_ai.security.guardrail.name", decision.name.clone()),
                KeyValue::new("gen_ai.security.guardrail.type", decision.stage.name()),
                KeyValue::new("agents_kt.decision.effective", decision.effective),
            ],
        );
    }
}
