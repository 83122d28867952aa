use agents_kt::prelude::*;

#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct Report {
    pub summary: String,
}

fn main() {
    let _ = Agent::<String, Report>::builder("reporter")
        .model(ScriptedModel::default())
        .build();
}
